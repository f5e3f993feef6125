import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The fault rows that URLSession's own protocol can run too, on the transport under test: broken
/// responses written by an in-process server, resets (RST) by the fault server (`scripts/test.sh` runs them on both): each task completes exactly once, within its
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

    /// Fails as `assertFails` does against a `TestServer(writing:)` of `raw`.
    private func assertFails(writing raw: String, with code: URLError.Code, file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try TestServer(writing: raw)
        defer { server.stop() }
        try assertFails(server.baseURL, with: code, file: file, line: line)
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
        try assertFails(writing: BrokenResponses.shortBody, with: expect(.networkConnectionLost, urlSession: .unknown))
    }

    func testBadChunkedEncoding() throws {
        try assertFails(writing: BrokenResponses.badChunked, with: expect(.networkConnectionLost, urlSession: .unknown))
    }

    func testInvalidStatusLine() throws {
        try assertFails(writing: BrokenResponses.invalidStatusLine, with: expect(.badServerResponse, urlSession: .unsupportedURL))
    }

    func testBytesThatAreNotHTTP() throws {
        try assertFails(writing: BrokenResponses.notHTTP, with: expect(.badServerResponse, urlSession: .unsupportedURL))
    }

    func testHeaderLineWithoutAColon() throws {
        try assertFails(writing: BrokenResponses.headerLineWithoutColon, with: expect(.badServerResponse, urlSession: .unknown))
    }

    func testCloseAfter100Continue() throws {
        try assertFails(writing: BrokenResponses.onlyContinue, with: expect(.networkConnectionLost, urlSession: .badServerResponse))
    }

    func testRedirectLoop() throws {
        let server = try makeServer { _ in .redirect(to: "/loop") }
        try assertFails(server.url("/loop"), with: expect(.httpTooManyRedirects))
    }
}
