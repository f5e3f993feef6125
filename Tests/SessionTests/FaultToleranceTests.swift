import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The fault-server rows that URLSession's own protocol can run too, on the transport under
/// test (`scripts/test.sh` runs them on both): each task completes exactly once, within its
/// timeout, with the error the transport maps the fault to (URLSession's own protocol maps
/// several to `.unknown`). `TransportTests.FaultMatrixTests` has every row on libcurl, with the
/// details. Not here: a reset inside the response's head, on which URLSession's own protocol
/// stops the process ("Transfer completed, but there's no response", NativeProtocol.swift:240);
/// libcurl fails it with -1005 (`FaultMatrixTests`).
final class FaultToleranceTests: XCTestCase {
    /// The code each transport gives, where URLSession's own protocol maps a fault differently.
    private func expect(_ libcurl: URLError.Code, urlSession: URLError.Code? = nil) -> URLError.Code {
        HTTPTransport.underTest == .urlSession ? (urlSession ?? libcurl) : libcurl
    }

    private func assertFails(_ url: URL, with code: URLError.Code, file: StaticString = #filePath, line: UInt = #line) throws {
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        let completions = Locked<[(any Error)?]>([])
        let done = expectation(description: "completion")
        var request = URLRequest(url: url)
        request.timeoutInterval = 5
        let start = Date()
        manager.resume(try manager.dataTask(with: request) { _, _, error in
            completions.withLock { $0.append(error) }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        usleep(100_000)
        let errors = completions.withLock { $0 }
        XCTAssertEqual(errors.count, 1, "completed exactly once", file: file, line: line)
        XCTAssertEqual((errors.first as? URLError)?.code, code, "\(String(describing: errors.first))", file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5.5, "within the idle timeout", file: file, line: line)
    }

    private func assertFails(_ path: String, with code: URLError.Code, file: StaticString = #filePath, line: UInt = #line) throws {
        try assertFails(try FaultServer.url(path), with: code, file: file, line: line)
    }

    func testRefusedConnection() throws {
        let port = try XCTUnwrap(UnusedPort.find())
        try assertFails(URL(string: "http://127.0.0.1:\(port)/")!, with: .cannotConnectToHost)
    }

    func testUnresolvableHost() throws {
        try assertFails(URL(string: "http://afn-fault-tolerance.invalid/")!, with: .cannotFindHost)
    }

    func testResetBeforeTheResponse() throws {
        try assertFails("/reset-early/0", with: expect(.networkConnectionLost, urlSession: .badServerResponse))
    }

    func testResetInsideTheBody() throws {
        try assertFails("/reset-body/1000", with: expect(.networkConnectionLost, urlSession: .unknown))
    }

    func testBodyShorterThanItsContentLength() throws {
        try assertFails("/short-body/1000", with: expect(.networkConnectionLost, urlSession: .unknown))
    }

    func testBadChunkedEncoding() throws {
        try assertFails("/bad-chunked/0", with: expect(.networkConnectionLost, urlSession: .unknown))
    }

    func testInvalidStatusLine() throws {
        try assertFails("/bad-status/0", with: expect(.badServerResponse, urlSession: .unsupportedURL))
    }

    func testBytesThatAreNotHTTP() throws {
        try assertFails("/not-http/0", with: expect(.badServerResponse, urlSession: .unsupportedURL))
    }

    func testHeaderLineWithoutAColon() throws {
        try assertFails("/no-colon/0", with: expect(.badServerResponse, urlSession: .unknown))
    }

    func testCloseAfter100Continue() throws {
        try assertFails("/continue-close/0", with: expect(.networkConnectionLost, urlSession: .badServerResponse))
    }

    func testRedirectLoop() throws {
        try assertFails("/redirect-loop/0", with: expect(.httpTooManyRedirects))
    }
}
