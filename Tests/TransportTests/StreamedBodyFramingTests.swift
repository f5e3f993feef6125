import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// How the libcurl transport frames a request body stream: with the length its
/// `Content-Length` declares, read by the one rule responses are read by (`ContentLength`), or
/// chunked when it declares none.
final class StreamedBodyFramingTests: XCTestCase {
    /// What a `TestServer` received of a POST of "hello" as a stream with `Content-Length: length`.
    private func received(declaring length: String) async throws -> RecordedRequest {
        let server = try TestServer { _ in .text("ok") }
        addTeardownBlock { server.stop() }
        let manager = URLSessionManager(transport: .libcurl)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("upload"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("hello".utf8))
        request.setValue(length, forHTTPHeaderField: "Content-Length")
        _ = try await manager.data(for: request)
        return try XCTUnwrap(server.requests.first)
    }

    func testARepeatedContentLengthDeclaresItsValue() async throws {
        let request = try await received(declaring: "5, 5")
        XCTAssertEqual(request.value(forHeader: "Content-Length"), "5")
        XCTAssertNil(request.value(forHeader: "Transfer-Encoding"))
        XCTAssertEqual(request.body, Data("hello".utf8))
    }

    func testAContentLengthThatIsNoLengthSendsTheBodyChunked() async throws {
        for value in ["five", "5, 6", "-5"] {
            let request = try await received(declaring: value)
            XCTAssertNil(request.value(forHeader: "Content-Length"), value)
            XCTAssertEqual(request.value(forHeader: "Transfer-Encoding"), "chunked", value)
            XCTAssertEqual(request.body, Data("hello".utf8), value)
        }
    }

    func testATaskShowsTheLengthARepeatedContentLengthDeclaresBeforeItRuns() throws {
        let manager = URLSessionManager(transport: .libcurl)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:9/upload")!)
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("hello".utf8))
        request.setValue("5, 5", forHTTPHeaderField: "Content-Length")
        let task = try manager.dataTask(with: request) { _, _, _ in }
        XCTAssertEqual(task.countOfBytesExpectedToSend, 5)
        task.cancel()
    }
}
