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

    /// A length whose end lies past `Int.max` is refused (the server answers 400) instead of
    /// trapping in the sum.
    func testAContentLengthPastTheLargestIndexIsRefused() {
        for length in ["9223372036854775807", "9223372036854775790", "99999999999999999999", "+5", "5 5", ""] {
            XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nContent-Length: \(length)\r\n\r\n"), length) {
                XCTAssertEqual($0 as? RequestParser.Failure, .invalidContentLength(length))
            }
        }
    }

    /// A chunk size is hexadecimal digits only, in an `Int`: no sign, no prefix, no overflow.
    func testChunkSizesThatAreNotHexadecimalDigitsInAnIntAreRefused() {
        for size in ["ffffffffffffffffff", "10000000000000000", "-1", "+5", "0x5", "", " ", "5\u{301}"] {
            XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\n"), size) {
                XCTAssertEqual($0 as? RequestParser.Failure, .malformedChunk)
            }
        }
        XCTAssertNil(try parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nab"), "the largest size waits for its bytes")
    }

    /// A colon, a space or a semicolon followed by U+0301 is one `Character` with it; the
    /// parser reads bytes, and finds each delimiter where a server does.
    func testDelimitersFollowedByACombiningMarkStillDelimit() throws {
        let parsed = try XCTUnwrap(parse("GET / HTTP/1.1\r\nX-A:\u{301}b: c\r\n\r\n"))
        XCTAssertEqual(parsed.fields, [.init(name: "X-A", value: "\u{301}b: c")])
        XCTAssertThrowsError(try parse("GET /a \u{301}b HTTP/1.1\r\n\r\n"), "a space in the target") {
            XCTAssertEqual($0 as? RequestParser.Failure, .malformedRequestLine("GET /a \u{301}b HTTP/1.1"))
        }
        XCTAssertThrowsError(try parse("GET / HTTP/1.\u{301}1\r\n\r\n"), "a mark in the version")
        let chunked = try XCTUnwrap(parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2;\u{301}x\r\nok\r\n0\r\n\r\n"))
        XCTAssertEqual(chunked.body, Data("ok".utf8))
    }

    /// A transfer coding other than chunked last leaves the body's length unknown: refused
    /// (RFC 9112, 6.3), also `chunked` followed by a combining mark.
    func testATransferCodingOtherThanChunkedLastIsRefused() throws {
        for codings in ["chunked\u{301}", "gzip", "chunked, gzip"] {
            XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nTransfer-Encoding: \(codings)\r\nContent-Length: 2\r\n\r\nok"), codings) {
                XCTAssertEqual($0 as? RequestParser.Failure, .unsupportedTransferCoding(codings))
            }
        }
        XCTAssertEqual(try parse("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")?.body, Data("ok".utf8))
    }

    /// `100 Continue` is sent for an `Expect` field of exactly `100-continue`, in any case.
    func testOnlyAnExpectFieldOf100ContinueAsksToContinue() {
        XCTAssertTrue(RequestParser.expectsContinue(Data("PUT / HTTP/1.1\r\nExpect:100-Continue\r\n\r\n".utf8)))
        XCTAssertFalse(RequestParser.expectsContinue(Data("PUT / HTTP/1.1\r\nExpect: 100-continue\u{301}\r\n\r\n".utf8)))
        XCTAssertFalse(RequestParser.expectsContinue(Data("PUT / HTTP/1.1\r\nX-Expect: 100-continue\r\n\r\n".utf8)))
    }

    /// A client sending both `Content-Length` and `chunked`, or two lengths that disagree,
    /// frames its body ambiguously: refused (the server answers 400), as gunicorn and nginx do.
    func testABodyFramedBothWaysOrWithDisagreeingLengthsIsRefused() throws {
        XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")) {
            XCTAssertEqual($0 as? RequestParser.Failure, .ambiguousFraming("Transfer-Encoding with Content-Length"))
        }
        XCTAssertThrowsError(try parse("POST / HTTP/1.1\r\nContent-Length: 2\r\ncontent-length: 3\r\n\r\nok")) {
            XCTAssertEqual($0 as? RequestParser.Failure, .ambiguousFraming("Content-Length: 2, 3"))
        }
        XCTAssertEqual(try parse("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok")?.body, Data("ok".utf8),
                       "a repeated length that agrees is one length")
    }
}
