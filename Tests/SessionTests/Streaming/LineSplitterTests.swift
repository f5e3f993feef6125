import AFSession
import Foundation
import XCTest

/// Lines split across chunks at every kind of ending, and the length bound.
final class LineSplitterTests: XCTestCase {
    private func split(_ chunks: [String], maximumLength: Int = 100) throws -> [String] {
        var splitter = LineSplitter(maximumLength: maximumLength)
        var lines: [String] = []
        for chunk in chunks {
            lines += try splitter.lines(in: Data(chunk.utf8)).map { String(decoding: $0, as: UTF8.self) }
        }
        if let last = splitter.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
        return lines
    }

    func testLFCRLFAndALoneCREachEndALine() throws {
        XCTAssertEqual(try split(["a\nb\r\nc\rd"]), ["a", "b", "c", "d"])
    }

    func testALineSplitAcrossChunksIsJoined() throws {
        XCTAssertEqual(try split(["he", "llo\nwor", "ld\n"]), ["hello", "world"])
    }

    func testACRLFSplitBetweenChunksIsOneEnding() throws {
        XCTAssertEqual(try split(["a\r", "\nb\r", "\r\n"]), ["a", "b", ""])
    }

    func testEmptyLinesAreKept() throws {
        XCTAssertEqual(try split(["\n\nx\n\n"]), ["", "", "x", ""])
    }

    func testALineAtTheLimitIsAccepted() throws {
        XCTAssertEqual(try split([String(repeating: "a", count: 10) + "\n"], maximumLength: 10), [String(repeating: "a", count: 10)])
    }

    func testALineOverTheLimitIsRefusedBeforeItEnds() {
        var splitter = LineSplitter(maximumLength: 10)
        XCTAssertNoThrow(try splitter.lines(in: Data(String(repeating: "a", count: 6).utf8)))
        XCTAssertThrowsError(try splitter.lines(in: Data(String(repeating: "a", count: 5).utf8))) { error in
            XCTAssertEqual(error as? StreamingError, .lineTooLong(limit: 10))
        }
    }

    func testALineOverTheLimitWithinOneChunkIsRefused() {
        var splitter = LineSplitter(maximumLength: 10)
        XCTAssertThrowsError(try splitter.lines(in: Data((String(repeating: "a", count: 11) + "\n").utf8))) { error in
            XCTAssertEqual(error as? StreamingError, .lineTooLong(limit: 10))
        }
    }
}
