@testable import AFTransport
import XCTest

/// The end of a response followed through its raw body bytes: the framing a head gives, and
/// where a length or a chunked body ends.
final class ResponseEndTests: XCTestCase {
    private func fed(_ framing: ResponseEnd.Framing, _ text: String, bytesAtATime: Int = .max) -> [Bool] {
        var end = ResponseEnd(framing: framing)
        var states: [Bool] = []
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let piece = bytes.prefix(bytesAtATime)
            bytes = bytes.dropFirst(piece.count)
            Array(piece).withUnsafeBytes { end.consume($0) }
            states.append(end.isComplete)
        }
        return states
    }

    func testAResponseWithoutABodyHasEndedWithItsHead() throws {
        XCTAssertEqual(try ResponseEnd.framing(status: 200, isHead: true, transferEncoding: "chunked", contentLength: "5"), .empty)
        XCTAssertEqual(try ResponseEnd.framing(status: 204, isHead: false, transferEncoding: nil, contentLength: nil), .empty)
        XCTAssertEqual(try ResponseEnd.framing(status: 304, isHead: false, transferEncoding: nil, contentLength: "12"), .empty)
        XCTAssertTrue(ResponseEnd(framing: .empty).isComplete)
        XCTAssertTrue(ResponseEnd(framing: .length(0)).isComplete)
    }

    func testTheFramingIsChunkedOnlyWhenChunkedIsTheLastCoding() throws {
        XCTAssertEqual(try ResponseEnd.framing(status: 413, isHead: false, transferEncoding: "gzip, Chunked ", contentLength: nil), .chunked)
        XCTAssertEqual(try ResponseEnd.framing(status: 200, isHead: false, transferEncoding: "chunked, gzip", contentLength: nil), .untilClose)
        XCTAssertEqual(try ResponseEnd.framing(status: 200, isHead: false, transferEncoding: "chunked\u{301}", contentLength: nil), .untilClose)
        XCTAssertEqual(try ResponseEnd.framing(status: 200, isHead: false, transferEncoding: "chunked", contentLength: "5"), .chunked)
    }

    func testWithoutAContentLengthTheCloseEndsTheBody() throws {
        XCTAssertEqual(try ResponseEnd.framing(status: 200, isHead: false, transferEncoding: nil, contentLength: nil), .untilClose)
        XCTAssertEqual(fed(.untilClose, "anything at all"), [false])
    }

    func testOnlyABodyDelimitedByTheCloseEndsWhenTheConnectionCloses() {
        var untilClose = ResponseEnd(framing: .untilClose)
        untilClose.connectionClosed()
        XCTAssertTrue(untilClose.isComplete)
        for framing in [ResponseEnd.Framing.length(9), .chunked] {
            var end = ResponseEnd(framing: framing)
            end.connectionClosed()
            XCTAssertFalse(end.isComplete, "\(framing)")
        }
    }

    func testABodyOfKnownLengthEndsAtItsLastByte() {
        XCTAssertEqual(fed(.length(9), "too large", bytesAtATime: 4), [false, false, true])
        XCTAssertEqual(fed(.length(3), "abcdef"), [true])
    }

    func testAChunkedBodyEndsAtTheLineEndingItsTrailerSection() {
        let body = "3;ext=\"1\"\r\ntoo\r\n6\r\n large\r\n0\r\nX-Why: size\r\n\r\n"
        let states = fed(.chunked, body, bytesAtATime: 1)
        XCTAssertEqual(states.firstIndex(of: true), body.utf8.count - 1)
        XCTAssertEqual(fed(.chunked, "A\r\n0\r\n\r\n0\r\n\r\n\r\n0\r\n\r\n"), [true])
    }

    func testChunkDataThatLooksLikeTheLastChunkDoesNotEndTheBody() {
        XCTAssertEqual(fed(.chunked, "5\r\n0\r\n\r\n\r\n"), [false])
        XCTAssertEqual(fed(.chunked, "5\n0\n\n\n\n\n0\n\n"), [true])
    }

    func testAChunkedBodyWhoseFramingIsLostNeverEnds() {
        XCTAssertEqual(fed(.chunked, "zz\r\nabc\r\n0\r\n\r\n"), [false])
        XCTAssertEqual(fed(.chunked, "\r\n0\r\n\r\n"), [false])
        XCTAssertEqual(fed(.chunked, "3\r\nabcX0\r\n\r\n"), [false])
        XCTAssertEqual(fed(.chunked, "10000000000000000\r\n0\r\n\r\n"), [false])
    }
}
