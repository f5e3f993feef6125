import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Stream uploads: URLSession on Linux sends them chunked, breaks when `Content-Length` is also
/// set, and ends the body at the first moment no bytes are available.
final class UploadBodyStreamTests: XCTestCase {
    /// A `TestServer` answering every request with an empty 200, stopped at the test's end.
    private func server() throws -> TestServer {
        let server = try TestServer { _ in .status(200) }
        addTeardownBlock { server.stop() }
        return server
    }

    private func anythingRequest(_ server: TestServer) -> URLRequest {
        var request = URLRequest(url: server.baseURL.appendingPathComponent("anything"))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        return request
    }

    /// The body of the one request `server` received.
    private func receivedBody(_ server: TestServer) throws -> Data {
        XCTAssertEqual(server.requests.count, 1)
        return try XCTUnwrap(server.requests.first).body
    }

    func testStreamWithAContentLengthHeaderIsAcceptedAndArrivesByteExact() throws {
        let manager = makeManager()
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let server = try server()
        var request = anythingRequest(server)
        request.httpBodyStream = InputStream(data: body)
        request.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
        let progress = ProgressLog()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, progress: progress.handler, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try receivedBody(server), body)
        // Framed one way only (the server refuses a body framed both ways, 400): by its length on
        // libcurl; chunked on URLSession's own protocol, which sends a stream no other way.
        let framing = (server.requests.first?.value(forHeader: "Content-Length"), server.requests.first?.value(forHeader: "Transfer-Encoding"))
        if HTTPTransport.underTest == .urlSession {
            XCTAssertTrue(framing == (nil, "chunked"), "\(framing)")
        } else {
            XCTAssertTrue(framing == ("200000", nil), "\(framing)")
        }
        XCTAssertEqual(progress.last?.completedUnitCount, 200_000)
    }

    func testMultipartUploadThroughTheManagerArrivesByteExact() throws {
        let manager = makeManager()
        let file = Data((0..<123_457).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let server = try server()
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: server.baseURL.absoluteString + "/post") { form in
            try form.appendPart(withFileData: file, name: "f", fileName: "f.bin", mimeType: "application/octet-stream")
        }
        let progress = ProgressLog()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, progress: progress.handler, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        let received = try XCTUnwrap(server.requests.first)
        let parts = MultipartParts.parse(received.body, contentType: received.value(forHeader: "Content-Type"))
        XCTAssertEqual(parts.map(\.filename), ["f.bin"])
        XCTAssertEqual(parts.first { $0.name == "f" }?.content, file)
        XCTAssertEqual(progress.last?.totalUnitCount, Int64(request.multipartContentLength!))
    }

    func testMomentarilyEmptyStreamIsNotTruncated() throws {
        let manager = makeManager()
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
        let server = try server()
        var request = anythingRequest(server)
        request.httpBodyStream = HesitantInputStream(data: body)
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(try receivedBody(server), body)
    }

    func testFailingStreamFailsTheTaskWithBodyStreamFailed() throws {
        let manager = makeManager()
        var request = anythingRequest(try server())
        request.httpBodyStream = FailingInputStream()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        guard case .bodyStreamFailed? = result.error as? SessionError else {
            return XCTFail("expected bodyStreamFailed, got \(String(describing: result.error))")
        }
    }

    func testMultipartSourceEndingEarlyFailsTheTaskWithItsTypedError() throws {
        let manager = makeManager()
        let request = try HTTPRequestSerializer().multipartFormRequest(method: "POST", urlString: try server().baseURL.absoluteString + "/post") { form in
            try form.appendPart(with: InputStream(data: Data(count: 10)), name: "s", fileName: "s", length: 50, mimeType: "a/b")
        }
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        guard case .bodyStreamFailed(let underlying)? = result.error as? SessionError else {
            return XCTFail("expected bodyStreamFailed, got \(String(describing: result.error))")
        }
        XCTAssertEqual(underlying as? RequestSerializationError, .bodySourceEndedEarly(expected: 50, received: 10))
    }
}

/// A stream that reports no bytes available every other time it is asked, while `read` still
/// delivers: the shape of a pipe whose writer is momentarily behind.
final class HesitantInputStream: InputStream {
    private let data: Data
    private var offset = 0
    private var askedTimes = 0

    override init(data: Data) {
        self.data = data
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}

    override var hasBytesAvailable: Bool {
        askedTimes += 1
        return askedTimes % 2 == 0 && offset < data.count
    }

    override var streamStatus: Stream.Status { offset < data.count ? .open : .atEnd }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let count = min(len, data.count - offset, 7_000)
        data.copyBytes(to: buffer, from: offset..<(offset + count))
        offset += count
        return count
    }
}
