import AFLocking
import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Broken and hostile responses from the project's fault server, one per test: each task
/// completes exactly once, promptly, with the mapped error (libcurl transport).
final class FaultMatrixTests: XCTestCase {
    private struct Outcome {
        let calls: Int
        let error: URLError?
        let object: (any Sendable)?
    }

    private func fetch(_ path: String) throws -> Outcome {
        try fetch(url: try FaultServer.url(path))
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
        let outcome = try fetch(path)
        XCTAssertEqual(outcome.calls, 1, "completed exactly once", file: file, line: line)
        XCTAssertEqual(outcome.error?.code, code, "\(String(describing: outcome.error))", file: file, line: line)
        XCTAssertNotNil(outcome.error?.userInfo[NSURLErrorFailingURLErrorKey] as? URL, file: file, line: line)
    }

    func testABodyShorterThanItsContentLengthIsConnectionLost() throws {
        try assertFails("/short-body/1000", with: .networkConnectionLost)
    }

    func testAConnectionResetMidBodyIsConnectionLost() throws {
        try assertFails("/reset-body/100000", with: .networkConnectionLost)
    }

    func testBadChunkedEncodingIsConnectionLost() throws {
        try assertFails("/bad-chunked/0", with: .networkConnectionLost)
    }

    func testBytesThatAreNotHTTPAreABadServerResponse() throws {
        try assertFails("/not-http/0", with: .badServerResponse)
    }

    func testAHeaderLineWithoutAColonIsABadServerResponse() throws {
        try assertFails("/no-colon/0", with: .badServerResponse)
    }

    func testARedirectToAFileURLIsRefused() throws {
        try assertFails("/redirect-file/0", with: .unsupportedURL)
    }

    func testARedirectToAnFTPURLIsRefused() throws {
        try assertFails("/redirect-ftp/0", with: .unsupportedURL)
    }

    func testTwoHundredKilobytesOfHeadersAreParsed() throws {
        let outcome = try fetch("/huge-headers/200")
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.object as? Data, Data("ok".utf8))
    }

    func testTenThousandHeaderLinesAreParsed() throws {
        let outcome = try fetch("/header-lines/10000")
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.object as? Data, Data("ok".utf8))
    }

    func testAStormOfInterimResponsesEndsInTheFinalOne() throws {
        let outcome = try fetch("/continue-storm/1000")
        XCTAssertEqual(outcome.calls, 1)
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.object as? Data, Data("ok".utf8))
    }

    func testARedirectLoopEndsWithTooManyRedirects() throws {
        try assertFails("/redirect-loop/0", with: .httpTooManyRedirects)
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
        try assertFails("/bad-status/0", with: .badServerResponse)
    }

    func testAServerClosingAfter100ContinueIsConnectionLost() throws {
        try assertFails("/continue-close/0", with: .networkConnectionLost)
    }

    func testASlowlorisServerEndsAtTheTotalTimeout() throws {
        let start = Date()
        let outcome = try fetch(url: try FaultServer.url("/slowloris/10"), totalTimeout: 1.5)
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
