import AFSerialization
import Foundation
import TestSupport
import XCTest

final class PercentEscapingTests: XCTestCase {
    func testReservedCharactersEscapeToExactBytes() {
        XCTAssertEqual(
            QueryStringEncoding.percentEscaped(":#[]@!$&'()*+,;=?/"),
            "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D?/")
    }

    func testUnreservedCharactersAreLeftAlone() {
        let unreserved = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?"
        XCTAssertEqual(QueryStringEncoding.percentEscaped(unreserved), unreserved)
    }

    func testSpaceIsPercent20NeverPlus() {
        XCTAssertEqual(QueryStringEncoding.percentEscaped("a b"), "a%20b")
    }

    func testAlreadyEncodedInputIsEncodedAgain() {
        XCTAssertEqual(QueryStringEncoding.percentEscaped("%20"), "%2520")
    }

    func testNonASCIIIsEncodedAsUTF8Bytes() {
        XCTAssertEqual(QueryStringEncoding.percentEscaped("é日"), "%C3%A9%E6%97%A5")
    }

    func testEmojiAcrossTheFiftyCharacterBatchBoundaryIsNotSplit() {
        let string = String(repeating: "a", count: 49) + "👴🏿👷🏻👮🏽" + String(repeating: "b", count: 60)
        let escaped = QueryStringEncoding.percentEscaped(string)
        XCTAssertEqual(escaped.removingPercentEncoding, string)
        XCTAssertTrue(escaped.contains("%F0%9F%91%B4%F0%9F%8F%BF"))
    }

    func testFlagsAndCombiningSequencesRoundTrip() {
        let string = "🇫🇷🇯🇵e\u{301}👨‍👩‍👧"
        XCTAssertEqual(QueryStringEncoding.percentEscaped(string).removingPercentEncoding, string)
    }

    func testLongRandomStringsRoundTrip() {
        var generator = SeededGenerator(seed: 2)
        for _ in 0..<200 {
            let string = generator.string(maxLength: 120)
            XCTAssertEqual(QueryStringEncoding.percentEscaped(string).removingPercentEncoding, string)
        }
    }
}
