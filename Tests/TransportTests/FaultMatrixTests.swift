import AFLocking
import AFNetworkingTesting
import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Broken and hostile responses, one per test, written by an in-process server (resets, RST
/// rather than a close, and the answer of a plain port to a TLS hello by the project's fault
/// server; bad certificates by the TLS servers): each task completes exactly once, promptly,
/// with the mapped error (libcurl transport).
final class FaultMatrixTests: XCTestCase {
    private struct Outcome {
        let calls: Int
        let error: URLError?
        let object: (any Sendable)?
    }

    private func fetch(_ path: String) throws -> Outcome {
        try fetch(url: try FaultServer.url(path))
    }

    /// Fetches a `TestServer(writing:)` of `raw`.
    private func fetch(writing raw: String) throws -> Outcome {
        let server = try TestServer(writing: raw)
        defer { server.stop() }
        return try fetch(url: server.baseURL)
    }

    /// Fetches `url` with a 5 s idle timeout, and `policy` and `totalTimeout` if given.
    private func fetch(url: URL, policy: SecurityPolicy? = nil, totalTimeout: TimeInterval? = nil) throws -> Outcome {
        let manager = URLSessionManager(transport: .libcurl)
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        if let policy { try manager.setSecurityPolicy(policy) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let done = expectation(description: "completion")
        let results = Locked<[(error: (any Error)?, object: (any Sendable)?)]>([])
        var request = URLRequest(url: url)
        request.timeoutInterval = 5
        let task = try manager.dataTask(with: request) { _, object, error in
            results.withLock { $0.append((error, object)) }
            done.fulfill()
        }
        if let totalTimeout { try manager.setTotalTimeout(totalTimeout, for: task) }
        manager.resume(task)
        wait(for: [done], timeout: 10)
        usleep(100_000)
        let all = results.withLock { $0 }
        return Outcome(calls: all.count, error: all.first?.error as? URLError, object: all.first?.object)
    }

    private func assertFails(_ path: String, with code: URLError.Code, file: StaticString = #filePath, line: UInt = #line) throws {
        try assertFails(try fetch(path), with: code, file: file, line: line)
    }

    private func assertFails(writing raw: String, with code: URLError.Code, file: StaticString = #filePath, line: UInt = #line) throws {
        try assertFails(try fetch(writing: raw), with: code, file: file, line: line)
    }

    private func assertFails(_ outcome: Outcome, with code: URLError.Code, file: StaticString, line: UInt) throws {
        XCTAssertEqual(outcome.calls, 1, "completed exactly once", file: file, line: line)
        XCTAssertEqual(outcome.error?.code, code, "\(String(describing: outcome.error))", file: file, line: line)
        XCTAssertNotNil(outcome.error?.userInfo[NSURLErrorFailingURLErrorKey] as? URL, file: file, line: line)
    }

    func testABodyShorterThanItsContentLengthIsConnectionLost() throws {
        try assertFails(writing: BrokenResponses.shortBody, with: .networkConnectionLost)
    }

    func testAConnectionResetMidBodyIsConnectionLost() throws {
        try assertFails("/reset-body/100000", with: .networkConnectionLost)
    }

    func testBadChunkedEncodingIsConnectionLost() throws {
        try assertFails(writing: BrokenResponses.badChunked, with: .networkConnectionLost)
    }

    func testBytesThatAreNotHTTPAreABadServerResponse() throws {
        try assertFails(writing: BrokenResponses.notHTTP, with: .badServerResponse)
    }

    func testAHeaderLineWithoutAColonIsABadServerResponse() throws {
        try assertFails(writing: BrokenResponses.headerLineWithoutColon, with: .badServerResponse)
    }

    func testARedirectToAFileURLIsRefused() throws {
        try assertFails(writing: "HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\n\r\n", with: .unsupportedURL)
    }

    func testARedirectToAnFTPURLIsRefused() throws {
        try assertFails(writing: "HTTP/1.1 302 Found\r\nLocation: ftp://127.0.0.1/\r\nContent-Length: 0\r\n\r\n", with: .unsupportedURL)
    }

    func testTwoHundredKilobytesOfHeadersAreParsed() throws {
        let filler = (0..<200).map { "X-Filler-\($0): \(String(repeating: "f", count: 1000))\r\n" }.joined()
        let outcome = try fetch(writing: "HTTP/1.1 200 OK\r\n\(filler)Content-Length: 2\r\n\r\nok")
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.object as? Data, Data("ok".utf8))
    }

    func testTenThousandHeaderLinesAreParsed() throws {
        let lines = (0..<10000).map { "X-L\($0): v\r\n" }.joined()
        let outcome = try fetch(writing: "HTTP/1.1 200 OK\r\n\(lines)Content-Length: 2\r\n\r\nok")
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.object as? Data, Data("ok".utf8))
    }

    func testAStormOfInterimResponsesEndsInTheFinalOne() throws {
        let outcome = try fetch(writing: String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 1000) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.object as? Data, Data("ok".utf8))
    }

    func testARedirectLoopEndsWithTooManyRedirects() throws {
        try assertFails(writing: "HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n", with: .httpTooManyRedirects)
    }

    func testHTTPSToAPlainHTTPPortIsASecureConnectionFailure() throws {
        let plain = try FaultServer.url("/bytes/10")
        var components = try XCTUnwrap(URLComponents(url: plain, resolvingAgainstBaseURL: false))
        components.scheme = "https"
        let outcome = try fetch(url: try XCTUnwrap(components.url))
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertEqual(outcome.error?.code, .secureConnectionFailed, "\(String(describing: outcome.error))")
    }

    func testAnUnresolvableHostIsCannotFindHost() throws {
        let outcome = try fetch(url: URL(string: "http://afn-fault-matrix.invalid/")!)
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertEqual(outcome.error?.code, .cannotFindHost, "\(String(describing: outcome.error))")
    }

    func testAResetBeforeTheResponseIsConnectionLost() throws {
        try assertFails("/reset-early/0", with: .networkConnectionLost)
    }

    func testAResetMidHeadersIsConnectionLost() throws {
        try assertFails("/reset-headers/0", with: .networkConnectionLost)
    }

    func testAnInvalidStatusLineIsABadServerResponse() throws {
        try assertFails(writing: BrokenResponses.invalidStatusLine, with: .badServerResponse)
    }

    func testAServerClosingAfter100ContinueIsConnectionLost() throws {
        try assertFails(writing: BrokenResponses.onlyContinue, with: .networkConnectionLost)
    }

    func testASlowlorisServerEndsAtTheTotalTimeout() throws {
        let start = Date()
        // The head and 10 body bytes, a byte a second.
        let bytes = Data("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n\(String(repeating: "l", count: 10))".utf8)
        let server = try TestServer(writing: bytes.flatMap { [ServerReply.Step.send(Data([$0])), .pause(1)] })
        defer { server.stop() }
        let outcome = try fetch(url: server.baseURL, totalTimeout: 1.5)
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertEqual(outcome.error?.code, .timedOut, "\(String(describing: outcome.error))")
        XCTAssertEqual(outcome.error?.userInfo[TimeoutKind.errorUserInfoKey] as? String, TimeoutKind.total.rawValue)
        XCTAssertLessThan(elapsed, 1.5 + 0.1 + 0.15, "fired within 100 ms of 1.5 s (plus the test's own wait)")
    }

    // TLS, against the local TLS servers, with the fixture root as the only anchor.

    private func fetchTLS(_ server: String) throws -> Outcome {
        let policy = SecurityPolicy(pinningMode: .none, anchorCertificates: [try Fixtures.certificate("root-ca")])
        return try fetch(url: try TLSServer.named(server).url("/get"), policy: policy)
    }

    func testAnExpiredCertificateIsABadDate() throws {
        XCTAssertEqual(try fetchTLS("expired").error?.code, .serverCertificateHasBadDate)
    }

    func testACertificateForAnotherHostIsUntrusted() throws {
        XCTAssertEqual(try fetchTLS("wrong-host").error?.code, .serverCertificateUntrusted)
    }

    func testASelfSignedCertificateHasAnUnknownRoot() throws {
        XCTAssertEqual(try fetchTLS("self-signed").error?.code, .serverCertificateHasUnknownRoot)
    }
}
