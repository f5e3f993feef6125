import AFSession
import Foundation
import XCTest

/// The WHATWG event-stream rules, one per test, fed as lines.
final class ServerSentEventParserTests: XCTestCase {
    private func events(_ text: String, parser: inout ServerSentEventParser) -> [ServerSentEvent] {
        var splitter = LineSplitter()
        let lines = (try? splitter.lines(in: Data(text.utf8))) ?? []
        return lines.compactMap { parser.parse(line: $0) }
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

    func testABlockTheStreamEndsInsideIsNotDispatched() {
        var parser = ServerSentEventParser()
        XCTAssertEqual(events("data: complete\n\ndata: partial\n", parser: &parser), [ServerSentEvent(data: "complete")])
        XCTAssertNil(parser.finish(lastLine: nil))
    }

    func testCRAndCRLFEndLinesToo() {
        XCTAssertEqual(events("data: a\r\rdata: b\r\n\r\n"), [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }
}
