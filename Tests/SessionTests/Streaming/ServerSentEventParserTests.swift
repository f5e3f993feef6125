import AFSession
import Foundation
import XCTest

/// The WHATWG event-stream rules, one per test, fed as lines.
final class ServerSentEventParserTests: XCTestCase {
    private func events(_ text: String, parser: inout ServerSentEventParser) -> [ServerSentEvent] {
        var splitter = LineSplitter()
        do {
            return try splitter.lines(in: Data(text.utf8)).compactMap { try parser.parse(line: $0) }
        } catch {
            XCTFail("\(error)")
            return []
        }
    }

    private func events(_ text: String) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        return events(text, parser: &parser)
    }

    func testDataLinesAreJoinedByLineFeeds() {
        XCTAssertEqual(events("data: one\ndata: two\n\n"), [ServerSentEvent(data: "one\ntwo")])
    }

    func testTheEventFieldSetsTheTypeForOneEventOnly() {
        XCTAssertEqual(events("event: add\ndata: 1\n\ndata: 2\n\n"), [ServerSentEvent(event: "add", data: "1"), ServerSentEvent(data: "2")])
    }

    func testTheIDPersistsAcrossEventsAndAnEmptyOneResetsIt() {
        XCTAssertEqual(events("id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"),
                       [ServerSentEvent(data: "a", id: "7"), ServerSentEvent(data: "b", id: "7"), ServerSentEvent(data: "c", id: "")])
    }

    func testAnIDContainingNULIsIgnored() {
        XCTAssertEqual(events("id: 1\n\nid: a\u{0}b\ndata: x\n\n"), [ServerSentEvent(data: "x", id: "1")])
    }

    func testRetryTakesDigitsOnly() {
        var parser = ServerSentEventParser()
        _ = events("retry: 1500\n\nretry: 2s\n\nretry: -1\n\n", parser: &parser)
        XCTAssertEqual(parser.reconnectionTime, 1500)
    }

    func testARetryTimePastIntIsTheLongestTime() {
        var parser = ServerSentEventParser()
        _ = events("retry: 99999999999999999999999\n\n", parser: &parser)
        XCTAssertEqual(parser.reconnectionTime, .max)
    }

    func testDataUpToTheLimitIsKept() {
        var parser = ServerSentEventParser(maximumDataSize: 8)
        XCTAssertEqual(events("data: 123\ndata: 4567\n\n", parser: &parser), [ServerSentEvent(data: "123\n4567")])
    }

    func testDataPastTheLimitThrows() throws {
        var parser = ServerSentEventParser(maximumDataSize: 8)
        XCTAssertNil(try parser.parse(line: Data("data: 123".utf8)))
        XCTAssertThrowsError(try parser.parse(line: Data("data: 45678".utf8))) { error in
            XCTAssertEqual(error as? StreamingError, .eventDataTooLarge(limit: 8))
        }
    }

    func testTheDataLimitCountsEachEventAfresh() {
        var parser = ServerSentEventParser(maximumDataSize: 4)
        XCTAssertEqual(events("data: 1234\n\ndata: 5678\n\n", parser: &parser), [ServerSentEvent(data: "1234"), ServerSentEvent(data: "5678")])
    }

    func testCommentsAndUnknownFieldsAreIgnored() {
        XCTAssertEqual(events(": keep-alive\nfoo: bar\ndata: x\n\n"), [ServerSentEvent(data: "x")])
    }

    func testOnlyOneLeadingSpaceIsRemovedFromAValue() {
        XCTAssertEqual(events("data:  two spaces\ndata:none\n\n"), [ServerSentEvent(data: " two spaces\nnone")])
    }

    func testAFieldWithoutAColonHasAnEmptyValue() {
        XCTAssertEqual(events("data\ndata\n\n"), [ServerSentEvent(data: "\n")])
    }

    func testABlockWithoutDataDispatchesNothing() {
        XCTAssertEqual(events("event: ping\n\nid: 3\n\n"), [])
    }

    func testALeadingByteOrderMarkIsSkipped() {
        XCTAssertEqual(events("\u{FEFF}data: x\n\n"), [ServerSentEvent(data: "x")])
    }

    func testALeadingByteOrderMarkBeforeAColonStartsAComment() {
        XCTAssertEqual(events("\u{FEFF}:data: x\ndata: y\n\n"), [ServerSentEvent(data: "y")])
    }

    func testInvalidUTF8IsReplacedInValues() throws {
        var parser = ServerSentEventParser()
        XCTAssertNil(try parser.parse(line: Data([0x64, 0x61, 0x74, 0x61, 0x3A, 0x20, 0xE2, 0x82])))
        XCTAssertEqual(try parser.parse(line: Data()), ServerSentEvent(data: "\u{FFFD}"))
    }

    func testABlockTheStreamEndsInsideIsNotDispatched() {
        var parser = ServerSentEventParser()
        XCTAssertEqual(events("data: complete\n\ndata: partial\n", parser: &parser), [ServerSentEvent(data: "complete")])
        XCTAssertNil(parser.finish(lastLine: nil))
    }

    func testCRAndCRLFEndLinesToo() {
        XCTAssertEqual(events("data: a\r\rdata: b\r\n\r\n"), [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }

    // Delimiters followed by U+0301 COMBINING ACUTE ACCENT: one Character in Swift with the
    // delimiter, two code points for the standard, which is written on code points.

    func testAnIDWhoseNULIsFollowedByACombiningMarkIsIgnored() {
        XCTAssertEqual(events("id: 1\n\nid: ab\u{0}\u{301}cd\ndata: x\n\n"), [ServerSentEvent(data: "x", id: "1")])
    }

    func testACombiningMarkAfterTheColonIsKeptInTheValue() {
        XCTAssertEqual(events("data:\u{301}hello\n\n"), [ServerSentEvent(data: "\u{301}hello")])
    }

    func testTheSpaceAfterTheColonIsRemovedWhenACombiningMarkFollowsIt() {
        XCTAssertEqual(events("data: \u{301}hello\n\n"), [ServerSentEvent(data: "\u{301}hello")])
    }

    func testACommentColonFollowedByACombiningMarkStillStartsAComment() {
        XCTAssertEqual(events(":\u{301}data: x\ndata: y\n\n"), [ServerSentEvent(data: "y")])
    }

    func testACombiningMarkAfterCRStartsTheNextLine() {
        XCTAssertEqual(events("data: a\r\u{301}data: b\r\r"), [ServerSentEvent(data: "a")])
    }

    func testACombiningMarkAfterLFStartsTheNextLine() {
        XCTAssertEqual(events("data: a\n\u{301}data: b\n\n"), [ServerSentEvent(data: "a")])
    }

    func testAFieldNameEndingInACombiningMarkIsAnotherField() {
        XCTAssertEqual(events("data\u{301}: x\ndata: y\n\n"), [ServerSentEvent(data: "y")])
    }

    func testTheEventTypeKeepsACombiningMarkAfterTheSpace() {
        XCTAssertEqual(events("event: \u{301}add\ndata: x\n\n"), [ServerSentEvent(event: "\u{301}add", data: "x")])
    }

    func testRetryWithACombiningMarkIsNotDigitsOnly() {
        var parser = ServerSentEventParser()
        _ = events("retry: 10\u{301}\n\n", parser: &parser)
        XCTAssertNil(parser.reconnectionTime)
    }
}
