@testable import AFSecurity
import AFSerialization
import AFSession
import Foundation
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A streamed response's trailer fields on the libcurl transport: readable once the body has
/// been read to its end, apart from the head, over HTTP/1.1 (the fault server) and HTTP/2
/// (nginx), and bounded.
final class ResponseTrailersTests: XCTestCase {
    private func manager() throws -> URLSessionManager {
        let manager = URLSessionManager()
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .none, anchorCertificates: [TestSupport.Fixtures.certificate("root-ca")]))
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testTrailersAreReadableOnceTheBodyHasEnded() async throws {
        let streamed = try await manager().stream(for: URLRequest(url: try FaultServer.url("/trailers/100000")))
        XCTAssertNil(streamed.body.trailers, "trailers before the body was read")
        let body = try await streamed.body.collect(upTo: 1_000_000)
        XCTAssertEqual(body, Data(repeating: UInt8(ascii: "t"), count: 100_000))
        let digest = SHA256.hash(body).map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(streamed.body.trailers, ["Checksum": "sha256=\(digest)", "X-Count": "100000"])
    }

    func testTrailersOfAResponseHeldForAnInterceptorArriveWithIt() async throws {
        // With an interceptor an error response is held until the interceptor has declined to
        // retry it; its trailers go with it when it is handed on.
        let manager = try manager()
        manager.interceptor = RetryPolicy()
        let url = try FaultServer.raw(
            "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nno\r\n0\r\nX-Reason: gone\r\n\r\n")
        let streamed = try await manager.stream(for: URLRequest(url: url), validation: HTTPResponseSerializer(acceptableStatusCodes: nil))
        XCTAssertEqual(streamed.statusCode, 404)
        _ = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(streamed.body.trailers, ["X-Reason": "gone"])
    }

    func testTrailersNeverChangeTheHead() async throws {
        let streamed = try await manager().stream(for: URLRequest(url: try FaultServer.url("/trailers/10")))
        _ = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(streamed.body.trailers?["Checksum"]?.hasPrefix("sha256="), true)
        XCTAssertNil(streamed.response.value(forHTTPHeaderField: "Checksum"))
        XCTAssertEqual(streamed.response.value(forHTTPHeaderField: "Trailer"), "Checksum, X-Count")
    }

    func testABodyWithoutTrailersEndsWithNone() async throws {
        let streamed = try await manager().stream(for: URLRequest(url: try FaultServer.url("/stream/1000")))
        _ = try await streamed.body.collect(upTo: 10_000)
        XCTAssertEqual(streamed.body.trailers, [:])
    }

    func testTrailersArriveOverHTTP2() async throws {
        let server = try HTTP2Server.running()
        let url = try XCTUnwrap(URL(string: server.tlsURL.absoluteString + "/trailers/5000"))
        let streamed = try await manager().stream(for: URLRequest(url: url))
        let body = try await streamed.body.collect(upTo: 10_000)
        XCTAssertEqual(body.count, 5_000)
        XCTAssertEqual(streamed.body.trailers, ["x-checksum": "sha256=from-nginx"])
    }

    func testURLSessionsOwnProtocolGivesNoTrailers() async throws {
        // It cannot read them: `nil` says so, where an empty set would claim there were none. (A
        // response that has trailers crashes its protocol: corelibs Foundation's fatal error
        // "Transfer completed, but there's no response", README.)
        let manager = URLSessionManager(transport: .urlSession)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let streamed = try await manager.stream(for: URLRequest(url: try FaultServer.url("/stream/10")))
        _ = try await streamed.body.collect(upTo: 100)
        XCTAssertNil(streamed.body.trailers)
    }

    func testRepeatedTrailerFieldsAreJoined() async throws {
        let url = try FaultServer.raw(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Step: one\r\nX-Step: two\r\n\r\n")
        let streamed = try await manager().stream(for: URLRequest(url: url))
        _ = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(streamed.body.trailers, ["X-Step": "one, two"])
    }

    func testATrailerSectionOverTheLimitFailsTheTask() async throws {
        // 70 fields of 1,000 bytes: over the 64 KiB bound, each line under libcurl's own.
        let fields = (0..<70).map { "X-Filler-\($0): {pad}\r\n" }.joined()
        let url = try FaultServer.raw(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\(fields)\r\n", padding: 980)
        let streamed = try await manager().stream(for: URLRequest(url: url))
        do {
            _ = try await streamed.body.collect(upTo: 100)
            XCTFail("an oversized trailer section was accepted")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .badServerResponse)
            XCTAssertEqual(error.userInfo[NSUnderlyingErrorKey] as? ResponseFramingError, .trailerSectionTooLarge)
        }
        XCTAssertNil(streamed.body.trailers)
    }

    func testATrailerLineOverLibcurlsLimitFailsTheTask() async throws {
        try await assertRefused("X-Filler: {pad}", padding: 70_000)
    }

    func testANULInsideATrailerFailsTheTask() async throws {
        try await assertRefused("X-Split: a\0b")
    }

    func testACarriageReturnInsideATrailerFailsTheTask() async throws {
        try await assertRefused("X-Split: a\rSet-Cookie: b=c")
    }

    /// A response whose trailer section is `line` fails (libcurl 7.88 refuses such lines itself,
    /// before they are handed on), and leaves no trailers.
    private func assertRefused(_ line: String, padding: Int = 0, file: StaticString = #filePath, line number: UInt = #line) async throws {
        let url = try FaultServer.raw(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\(line)\r\n\r\n", padding: padding)
        let streamed = try await manager().stream(for: URLRequest(url: url))
        do {
            _ = try await streamed.body.collect(upTo: 100)
            XCTFail("the trailer was accepted", file: file, line: number)
        } catch is URLError {}
        XCTAssertNil(streamed.body.trailers, file: file, line: number)
    }
}
