@testable import AFSession
import Foundation
import XCTest

/// How one `Set-Cookie` value is read (RFC 6265 5.2, RFC 6265bis 5.6), without a server: on its
/// bytes, whatever combining marks follow a delimiter.
final class CookieTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/v1/items")!
    private let now = Date(timeIntervalSince1970: 1_700_000_000)
    private let fourHundredDays: TimeInterval = 400 * 86_400

    private func cookie(_ setCookie: String, from url: URL? = nil) -> Cookie? {
        Cookie(setCookie: setCookie, from: url ?? self.url, now: now)
    }

    // MARK: Control characters (RFC 6265bis 5.6; curl since CVE-2022-35252)

    func testAControlCharacterInTheNameIgnoresTheCookie() {
        for scalar in Array(0x00...0x08) + Array(0x0A...0x1F) + [0x7F] {
            let control = String(UnicodeScalar(UInt8(scalar)))
            XCTAssertNil(cookie("a\(control)b=1"), "U+\(String(scalar, radix: 16)) in the name")
        }
    }

    func testAControlCharacterInTheValueIgnoresTheCookie() {
        for scalar in Array(0x00...0x08) + Array(0x0A...0x1F) + [0x7F] {
            let control = String(UnicodeScalar(UInt8(scalar)))
            XCTAssertNil(cookie("a=b\(control)c"), "U+\(String(scalar, radix: 16)) in the value")
        }
    }

    func testAControlCharacterFollowedByACombiningMarkIgnoresTheCookie() {
        XCTAssertNil(cookie("a=b\u{01}\u{301}c"))
        XCTAssertNil(cookie("a\u{7F}\u{301}=b"))
        XCTAssertNil(cookie("a=b\u{1F}\u{301}"))
    }

    func testAControlCharacterInAnAttributeIgnoresTheCookie() {
        XCTAssertNil(cookie("a=b; Path=/x\u{0B}y"))
    }

    func testATabInTheValueIsKept() throws {
        XCTAssertEqual(try XCTUnwrap(cookie("a=b\tc")).value, "b\tc")
    }

    // MARK: Max-Age (RFC 6265 5.2.2, RFC 6265bis 5.6.2)

    func testANegativeMaxAgePastIntExpiresTheCookie() throws {
        let parsed = try XCTUnwrap(cookie("a=1; Max-Age=-99999999999999999999"))
        XCTAssertTrue(parsed.isExpired(at: now))
    }

    func testAMaxAgeOfMinusZeroExpiresTheCookie() throws {
        XCTAssertTrue(try XCTUnwrap(cookie("a=1; Max-Age=-0")).isExpired(at: now))
    }

    func testAMaxAgePastIntIsCappedAtFourHundredDaysAndWinsOverAPastExpires() throws {
        let parsed = try XCTUnwrap(cookie("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=99999999999999999999"))
        XCTAssertEqual(parsed.expires, now.addingTimeInterval(fourHundredDays))
    }

    func testAMaxAgeOverFourHundredDaysIsCapped() throws {
        XCTAssertEqual(try XCTUnwrap(cookie("a=1; Max-Age=40000000")).expires, now.addingTimeInterval(fourHundredDays))
    }

    func testAnExpiresOverFourHundredDaysIsCapped() throws {
        XCTAssertEqual(try XCTUnwrap(cookie("a=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT")).expires, now.addingTimeInterval(fourHundredDays))
    }

    func testAMaxAgeWithALeadingPlusIsIgnored() throws {
        XCTAssertNil(try XCTUnwrap(cookie("a=1; Max-Age=+60")).expires)
        let withExpires = try XCTUnwrap(cookie("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=+60"))
        XCTAssertTrue(withExpires.isExpired(at: now), "the ignored Max-Age replaced Expires")
    }

    func testAMaxAgeWithAnyOtherCharacterIsIgnored() throws {
        for value in ["", "-", "6O", "60s", "1e3", "0x10", "--1", "1-", "\u{661}\u{660}", "60\u{301}"] {
            XCTAssertNil(try XCTUnwrap(cookie("a=1; Max-Age=\(value)")).expires, "Max-Age=\(value)")
        }
    }

    func testAMaxAgeOfDigitsSetsTheExpiry() throws {
        XCTAssertEqual(try XCTUnwrap(cookie("a=1; Max-Age=0060")).expires, now.addingTimeInterval(60))
        XCTAssertTrue(try XCTUnwrap(cookie("a=1; Max-Age=0")).isExpired(at: now))
    }

    // MARK: Delimiters followed by combining marks

    func testAnEqualsSignFollowedByACombiningMarkSplitsNameAndValue() throws {
        let parsed = try XCTUnwrap(cookie("sid=\u{301}abc"))
        XCTAssertEqual(Array(parsed.name.unicodeScalars), ["s", "i", "d"])
        XCTAssertEqual(Array(parsed.value.unicodeScalars), ["\u{301}", "a", "b", "c"])
    }

    func testASemicolonFollowedByACombiningMarkEndsTheValue() throws {
        let parsed = try XCTUnwrap(cookie("a=1;\u{301}x; Path=/p"))
        XCTAssertEqual(Array(parsed.value.unicodeScalars), ["1"])
        XCTAssertEqual(parsed.path, "/p")
    }

    func testAnAttributesEqualsSignFollowedByACombiningMarkSplitsItsNameAndValue() throws {
        let parsed = try XCTUnwrap(cookie("a=1; SameSite=\u{301}Lax"))
        XCTAssertEqual(parsed.sameSite.map { Array($0.unicodeScalars) }, ["\u{301}", "L", "a", "x"])
    }

    func testOnlySpacesAndTabsAreTrimmed() throws {
        let parsed = try XCTUnwrap(cookie("\u{A0}a = \tb\u{A0} "))
        XCTAssertEqual(Array(parsed.name.unicodeScalars), ["\u{A0}", "a"])
        XCTAssertEqual(Array(parsed.value.unicodeScalars), ["b", "\u{A0}"])
    }

    // MARK: Domains with a trailing dot

    func testADomainIsKeptWithoutItsTrailingDot() throws {
        let parsed = try XCTUnwrap(cookie("a=1; Domain=example.com.", from: URL(string: "https://www.example.com./")!))
        XCTAssertEqual(parsed.domain, "example.com")
        XCTAssertFalse(parsed.isHostOnly)
    }

    func testAHostOnlyCookieOfAHostWithATrailingDotGoesToTheHostWithoutIt() throws {
        let parsed = try XCTUnwrap(cookie("a=1", from: URL(string: "https://example.com./")!))
        XCTAssertEqual(parsed.domain, "example.com")
        XCTAssertTrue(parsed.matches(URL(string: "https://example.com/")!))
        XCTAssertTrue(parsed.matches(URL(string: "https://example.com./")!))
    }

    func testADomainWithTwoTrailingDotsIsRefused() {
        XCTAssertNil(cookie("a=1; Domain=example.com..", from: URL(string: "https://www.example.com./")!))
    }

    // MARK: Paths, compared as the bytes of the request's path

    func testAPathCoversAPercentEncodedSegmentAfterIt() throws {
        let parsed = try XCTUnwrap(cookie("a=1; Path=/v1/"))
        XCTAssertTrue(parsed.matches(URL(string: "https://api.example.com/v1/%CC%81x")!))
        XCTAssertFalse(parsed.matches(URL(string: "https://api.example.com/v1%CC%81/x")!))
    }

    func testADirectoryPathCoversItsOwnURLWithATrailingSlash() throws {
        let parsed = try XCTUnwrap(cookie("a=1; Path=/v1/"))
        XCTAssertTrue(parsed.matches(URL(string: "https://api.example.com/v1/")!))
    }
}
