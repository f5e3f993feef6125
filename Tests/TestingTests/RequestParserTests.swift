@testable import AFNetworkingTesting
import Foundation
import XCTest

/// The test server's request parser, without a socket.
final class RequestParserTests: XCTestCase {
    private func parse(_ text: String) throws -> RequestParser.Parsed? {
        try RequestParser.parse(Data(text.utf8))
    }

    func testARequestWithALengthIsReadWithItsBody() throws {
        let parsed = try XCTUnwrap(parse("POST /items?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"))
        XCTAssertEqual(parsed.method, "POST")
        XCTAssertEqual(parsed.target, "/items?x=1")
        XCTAssertEqual(parsed.fields, [.init(name: "Host", value: "a"), .init(name: "Content-Length", value: "5")])
        XCTAssertEqual(parsed.body, Data("hello".utf8))
        XCTAssertFalse(parsed.closes)
    }

    func testAnIncompleteHeadOrBodyNeedsMoreBytes() throws {
        XCTAssertNil(try parse("GET / HTTP/1.1\r\nHost: a\r\n"))
        XCTAssertNil(try parse("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhel"))
        XCTAssertNil(try parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"))
    }

    func testAChunkedBodyIsDecodedAndItsTrailersKept() throws {
        let text = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n!\r\n0\r\nX-Trailer: t\r\nX-Sum:  9 \r\n\r\nGET"
        let parsed = try XCTUnwrap(parse(text))
        XCTAssertEqual(parsed.body, Data("hello!".utf8))
        XCTAssertEqual(parsed.trailers, [.init(name: "X-Trailer", value: "t"), .init(name: "X-Sum", value: "9")])
        XCTAssertEqual(parsed.consumed, text.utf8.count - 3)
    }

    func testATrailerLineWithoutAColonIsRefused() throws {
        let text = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n!\r\n0\r\nno colon\r\n\r\n"
        XCTAssertThrowsError(try parse(text)) { XCTAssertEqual($0 as? RequestParser.Failure, .malformedField("no colon")) }
    }

    func testPipelinedRequestsAreReadOneAtATime() throws {
        let text = "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nConnection: close\r\n\r\n"
        let first = try XCTUnwrap(parse(text))
        XCTAssertEqual(first.target, "/a")
        let second = try XCTUnwrap(RequestParser.parse(Data(text.utf8).dropFirst(first.consumed)))
        XCTAssertEqual(second.target, "/b")
        XCTAssertTrue(second.closes)
    }

    func testMalformedRequestsAreRefused() {
        XCTAssertThrowsError(try parse("GET /\r\n\r\n"))
        XCTAssertThrowsError(try parse("GET / HTTP/1.1\r\nNo colon here\r\n\r\n"))
        XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"))
        XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"))
    }

    func testAnHTTP10RequestClosesTheConnection() throws {
        XCTAssertEqual(try parse("GET / HTTP/1.0\r\n\r\n")?.closes, true)
    }
}
