import AFLocking
import AFNetworkingTesting
import AFSerialization
@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Heads that frame a body ambiguously are refused, each with its own fault; heads that are
/// merely unusual are surfaced.
final class ResponseFramingTests: XCTestCase {
    private func fault(_ lines: String...) -> ResponseFramingError? {
        ResponseFraming.fault(in: lines)
    }

    func testWellFormedHeadsPass() {
        XCTAssertNil(fault("HTTP/1.1 200 OK", "Content-Length: 5", "Location: /a"))
        XCTAssertNil(fault("HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 5"), "identical values are one length")
        XCTAssertNil(fault("HTTP/1.1 200 OK", "Transfer-Encoding: gzip, chunked"))
        XCTAssertNil(fault("HTTP/2 204"))
        XCTAssertNil(fault("HTTP/1.1 999 Custom", "Content-Length: 0"), "any three digits is a status code")
        XCTAssertNil(fault("HTTP/1.1 100 Continue"))
    }

    func testConflictingContentLengthsAreRefused() {
        XCTAssertEqual(fault("HTTP/1.1 200 OK", "Content-Length: 5", "Content-Length: 10"), .conflictingContentLengths("5, 10"))
        XCTAssertEqual(fault("HTTP/1.1 200 OK", "Content-Length: 5, 10"), .conflictingContentLengths("5, 10"))
    }

    func testMalformedContentLengthsAreRefused() {
        for value in ["+5", "0x10", "-1", "5 5", "", "99999999999999999999", "1e3"] {
            XCTAssertEqual(fault("HTTP/1.1 200 OK", "Content-Length: \(value)"), .invalidContentLength(value), value)
        }
    }

    func testTransferEncodingFaultsAreRefused() {
        XCTAssertEqual(fault("HTTP/1.1 200 OK", "Transfer-Encoding: chunked, chunked"), .repeatedChunked)
        XCTAssertEqual(fault("HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"), .repeatedChunked)
        XCTAssertEqual(fault("HTTP/1.0 200 OK", "Transfer-Encoding: chunked"), .transferEncodingInHTTP10)
    }

    func testABareCRInAFieldIsRefused() {
        XCTAssertEqual(fault("HTTP/1.1 200 OK", "X-Split: a\rInjected: b"), .controlCharacterInField(name: "X-Split"))
        XCTAssertEqual(fault("HTTP/1.1 200 OK", "X-Nul: a\u{0}b"), .controlCharacterInField(name: "X-Nul"))
    }

    func testAFieldWithoutAColonIsRefusedOnEveryLibcurl() {
        XCTAssertEqual(fault("HTTP/1.1 200 OK", "Content-Length: 2", "no colon here"), .fieldWithoutColon("no colon here"))
        XCTAssertNil(fault("HTTP/1.1 200 OK", "X-Long: a", " folded"), "a folded continuation is not a field")
    }

    func testLocationFaultsAreRefused() {
        XCTAssertEqual(fault("HTTP/1.1 302 Found", "Location: /a", "Location: /b"), .multipleLocations)
        let long = String(repeating: "a", count: ResponseFraming.longestLocation + 1)
        XCTAssertEqual(fault("HTTP/1.1 302 Found", "Location: /\(long)"), .locationTooLong(bytes: long.utf8.count + 1))
    }

    func testMalformedStatusLinesAreRefused() {
        for line in ["HTTP/1.1 20 OK", "HTTP/1.1 abc OK", "HTTP/1.1 2000 OK", "HTTP/ 200 OK", "HTTP/1.1 099 Low"] {
            XCTAssertEqual(fault(line), .malformedStatusLine(line), line)
        }
    }

    // MARK: End to end, on the libcurl transport

    /// The one completion of a GET of `raw` (an in-process server writes it as it is, with `{pad}`
    /// replaced by `padding` letters, then closes the connection).
    private func get(_ raw: String, padding: Int = 0) throws -> (response: URLResponse?, object: (any Sendable)?, error: (any Error)?) {
        let server = try TestServer(writing: raw.replacingOccurrences(of: "{pad}", with: String(repeating: "a", count: padding)))
        defer { server.stop() }
        let manager = URLSessionManager(transport: .libcurl)
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let done = expectation(description: "completion")
        let results = Locked<[(response: URLResponse?, object: (any Sendable)?, error: (any Error)?)]>([])
        var request = URLRequest(url: server.baseURL)
        request.timeoutInterval = 5
        manager.resume(try manager.dataTask(with: request) { response, object, error in
            results.withLock { $0.append((response, object, error)) }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        let all = results.withLock { $0 }
        XCTAssertEqual(all.count, 1, "completed exactly once")
        return all[0]
    }

    private func assertRefused(
        _ raw: String, padding: Int = 0, _ expected: ResponseFramingError, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try get(raw, padding: padding)
        let error = try XCTUnwrap(result.error as? URLError, "\(String(describing: result.error))", file: file, line: line)
        XCTAssertEqual(error.code, .badServerResponse, file: file, line: line)
        XCTAssertEqual(error.userInfo[NSUnderlyingErrorKey] as? ResponseFramingError, expected, file: file, line: line)
        XCTAssertTrue(error.localizedDescription.contains(expected.description), error.localizedDescription, file: file, line: line)
    }

    func testConflictingLengthsFailTheTaskWithTheirFault() throws {
        try assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\n0123456789", .conflictingContentLengths("5, 10"))
    }

    func testAHexadecimalLengthFailsInsteadOfAnEmptySuccess() throws {
        try assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n0123456789abcdef", .invalidContentLength("0x10"))
    }

    func testAnOverflowingLengthFailsInsteadOfReadingUntilClose() throws {
        try assertRefused("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nabc", .invalidContentLength("99999999999999999999"))
    }

    func testTransferEncodingOnHTTP10Fails() throws {
        try assertRefused("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", .transferEncodingInHTTP10)
    }

    func testTwoLocationsFailInsteadOfBeingJoined() throws {
        try assertRefused("HTTP/1.1 302 Found\r\nLocation: /a\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n", .multipleLocations)
    }

    func testAHeaderLineOverLibcurlsLimitIsATypedError() throws {
        try assertRefused("HTTP/1.1 302 Found\r\nLocation: /{pad}\r\nContent-Length: 0\r\n\r\n", padding: 200 * 1024, .headerLineTooLong)
    }

    func testALocationOverTheLimitIsATypedError() throws {
        try assertRefused("HTTP/1.1 302 Found\r\nLocation: /{pad}\r\nContent-Length: 0\r\n\r\n", padding: 40 * 1024,
                          .locationTooLong(bytes: 40 * 1024 + 1))
    }

    func testAStatusCodeOutsideTheUsualRangeIsSurfaced() throws {
        let result = try get("HTTP/1.1 999 Custom\r\nContent-Length: 2\r\n\r\nok")
        XCTAssertNil(result.error)
        XCTAssertEqual((result.response as? HTTPURLResponse)?.statusCode, 999)
        XCTAssertEqual(result.object as? Data, Data("ok".utf8))
    }
}
