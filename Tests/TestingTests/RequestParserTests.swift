@testable import AFNetworkingTesting
import Foundation
import XCTest

/// The test server's request parser, without a socket.
final class RequestParserTests: XCTestCase {
    private func parse(_ text: String) throws -> RequestParser.Parsed? {
        var parser = RequestParser()
        return try parser.parse(Data(text.utf8))
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
        let second = try XCTUnwrap(parse(String(text.utf8.dropFirst(first.consumed))!))
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

    /// Feeds `text` to one parser `step` bytes at a time, as a slow client sends it.
    private func parseInPieces(_ text: String, step: Int) throws -> RequestParser.Parsed? {
        var parser = RequestParser()
        let bytes = Data(text.utf8)
        var received = Data()
        for start in stride(from: 0, to: bytes.count, by: step) {
            received.append(bytes[start..<min(start + step, bytes.count)])
            if let parsed = try parser.parse(received) { return parsed }
        }
        return nil
    }

    func testARequestArrivingAByteAtATimeIsReadAsIfWhole() throws {
        let text = "POST /items HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world"
        XCTAssertEqual(try parseInPieces(text, step: 1), try parse(text))
    }

    func testAChunkedBodyArrivingInPiecesIsDecodedAsIfWhole() throws {
        let chunks = (0..<200).map { "3\r\n\(String(format: "%03d", $0))\r\n" }.joined()
        let text = "PUT /up HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + "0\r\nX-Sum: 1\r\n\r\n"
        for step in [1, 2, 7, 64] {
            let parsed = try XCTUnwrap(parseInPieces(text, step: step), "step \(step)")
            XCTAssertEqual(parsed, try parse(text), "step \(step)")
            XCTAssertEqual(parsed.body.count, 600)
        }
    }

    func testTheParserStartsANewRequestAfterReturningOne() throws {
        var parser = RequestParser()
        XCTAssertEqual(try parser.parse(Data("GET /a HTTP/1.1\r\n\r\n".utf8))?.target, "/a")
        XCTAssertEqual(try parser.parse(Data("GET /b HTTP/1.1\r\n\r\n".utf8))?.target, "/b")
    }
}

