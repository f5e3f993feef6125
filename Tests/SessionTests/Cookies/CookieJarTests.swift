@testable import AFSession
import Foundation
import XCTest

/// The jar's rules, without a server: what a response may set, and what a request carries.
final class CookieJarTests: XCTestCase {
    private let https = URL(string: "https://api.example.com/v1/items")!
    private let http = URL(string: "http://api.example.com/v1/items")!

    private func names(_ jar: CookieJar, for url: URL) -> [String] { jar.cookies(for: url).map(\.name) }

    func testAttributesAreParsed() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let cookie = try XCTUnwrap(Cookie(setCookie: "sid=abc; Domain=.Example.com; Path=/v1; Secure; HttpOnly; SameSite=Lax; Max-Age=60",
                                          from: https, now: now))
        XCTAssertEqual(cookie.name, "sid")
        XCTAssertEqual(cookie.value, "abc")
        XCTAssertEqual(cookie.domain, "example.com")
        XCTAssertFalse(cookie.isHostOnly)
        XCTAssertEqual(cookie.path, "/v1")
        XCTAssertTrue(cookie.isSecure)
        XCTAssertTrue(cookie.isHTTPOnly)
        XCTAssertEqual(cookie.sameSite, "Lax")
        XCTAssertEqual(cookie.expires, now.addingTimeInterval(60))
        XCTAssertEqual(try XCTUnwrap(Cookie(setCookie: "a=1", from: https)).path, "/v1", "the default path")
        XCTAssertNil(Cookie(setCookie: "novalue", from: https))
        XCTAssertNil(Cookie(setCookie: "a=1; Domain=other.com", from: https), "a domain that does not cover the host")
        XCTAssertNil(Cookie(setCookie: "a=1; Domain=0.0.1", from: URL(string: "http://127.0.0.1/")!), "no domain covers an address")
        XCTAssertNil(Cookie(setCookie: "a=1; Domain=1", from: URL(string: "http://[::1]/")!), "no domain covers an address")
    }

    func testSecureCookiesAreSentOnlyOverHTTPS() {
        let jar = CookieJar()
        jar.store(setCookies: ["s=1; Secure", "p=2"], from: https)
        XCTAssertEqual(Set(names(jar, for: https)), ["s", "p"])
        XCTAssertEqual(names(jar, for: http), ["p"])
    }

    func testPlainHTTPCannotSetOrReplaceASecureCookie() {
        let jar = CookieJar()
        jar.store(setCookies: ["s=1; Secure"], from: http)
        XCTAssertEqual(jar.cookies, [], "http set a Secure cookie")
        jar.store(setCookies: ["s=good; Secure; Path=/"], from: https)
        jar.store(setCookies: ["s=evil; Path=/"], from: http)
        XCTAssertEqual(jar.cookies(for: https).map(\.value), ["good"])
    }

    func testPublicSuffixDomainsAreRefused() {
        let jar = CookieJar()
        for domain in ["com", "co.uk", "github.io", "localhost"] {
            let host = URL(string: "https://app.example.\(domain)/")!
            jar.store(setCookies: ["fix=1; Domain=\(domain)"], from: domain == "localhost" ? URL(string: "http://app.localhost/")! : host)
        }
        jar.store(setCookies: ["fix=1; Domain=github.io"], from: URL(string: "https://evil.github.io/")!)
        XCTAssertEqual(jar.cookies, [], "a public suffix got a cookie (source: \(CookieJar.publicSuffixSource))")
        jar.store(setCookies: ["ok=1; Domain=example.com; Path=/"], from: https)
        XCTAssertEqual(names(jar, for: URL(string: "https://www.example.com/")!), ["ok"])
    }

    func testASingleLabelHostKeepsItsOwnHostOnlyCookies() {
        let jar = CookieJar()
        let local = URL(string: "http://localhost:8080/")!
        jar.store(setCookies: ["a=1"], from: local)
        XCTAssertEqual(names(jar, for: local), ["a"])
        XCTAssertEqual(names(jar, for: URL(string: "http://other.localhost/")!), [])
    }

    func testHostOnlyCookiesStayOnTheirHost() {
        let jar = CookieJar()
        jar.store(setCookies: ["h=1"], from: https)
        XCTAssertEqual(names(jar, for: URL(string: "https://sub.api.example.com/v1/x")!), [])
        XCTAssertEqual(names(jar, for: URL(string: "https://api.example.com/v1/x")!), ["h"])
    }

    func testPerDomainLimitEvictsTheOldest() {
        let jar = CookieJar()
        jar.store(setCookies: (0..<260).map { "c\($0)=\(String(repeating: "x", count: 100)); Domain=example.com; Path=/" }, from: https)
        let kept = jar.cookies
        XCTAssertEqual(kept.count, 50)
        XCTAssertEqual(kept.first?.name, "c210")
        XCTAssertEqual(kept.last?.name, "c259")
    }

    func testTheCookieHeaderStaysWithinItsLimit() throws {
        let jar = CookieJar()
        jar.store(setCookies: (0..<50).map { "c\($0)=\(String(repeating: "x", count: 1_000)); Path=/" }, from: https)
        let header = try XCTUnwrap(jar.headerValue(for: https))
        XCTAssertLessThanOrEqual(header.utf8.count, CookieJar.Limits().headerBytes)
    }

    func testAnOversizedCookieIsRefused() {
        let jar = CookieJar()
        jar.store(setCookies: ["big=\(String(repeating: "x", count: 5_000))"], from: https)
        XCTAssertEqual(jar.cookies, [])
    }

    func testAnExpiredCookieRemovesTheOneItNames() {
        let jar = CookieJar()
        jar.store(setCookies: ["a=1; Path=/"], from: https)
        jar.store(setCookies: ["a=gone; Path=/; Max-Age=0"], from: https)
        XCTAssertEqual(jar.cookies, [])
        jar.store(setCookies: ["b=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT"], from: https)
        XCTAssertEqual(jar.cookies, [])
    }

    func testLongerPathsGoFirst() {
        let jar = CookieJar()
        jar.store(setCookies: ["a=1; Path=/", "b=2; Path=/v1"], from: https)
        XCTAssertEqual(jar.headerValue(for: https), "b=2; a=1")
    }

    func testJoinedSetCookieValuesAreSplitOutsideDates() {
        XCTAssertEqual(CookieJar.splitJoinedSetCookie("a=1; Expires=Wed, 21 Oct 2035 07:28:00 GMT, b=2; Path=/"),
                       ["a=1; Expires=Wed, 21 Oct 2035 07:28:00 GMT", "b=2; Path=/"])
    }

    func testAPublicSuffixWithATrailingDotIsRefused() {
        let jar = CookieJar()
        jar.store(setCookies: ["fix=1; Domain=co.uk."], from: URL(string: "http://evil.co.uk./")!)
        jar.store(setCookies: ["fix=2; Domain=github.io."], from: URL(string: "https://evil.github.io./")!)
        jar.store(setCookies: ["fix=3; Domain=com."], from: URL(string: "http://evil.com./")!)
        XCTAssertEqual(names(jar, for: URL(string: "http://bank.co.uk./")!), [], "source: \(CookieJar.publicSuffixSource)")
        XCTAssertEqual(names(jar, for: URL(string: "https://victim.github.io./")!), [])
        XCTAssertEqual(names(jar, for: URL(string: "http://bank.com/")!), [])
        XCTAssertEqual(jar.cookies, [])
    }

    func testAHostIsTheSameWithOrWithoutItsTrailingDot() {
        let jar = CookieJar()
        jar.store(setCookies: ["d=1; Domain=example.com.; Path=/"], from: URL(string: "https://www.example.com./")!)
        jar.store(setCookies: ["h=2; Path=/"], from: URL(string: "https://www.example.com/")!)
        XCTAssertEqual(Set(names(jar, for: URL(string: "https://www.example.com./")!)), ["d", "h"])
        XCTAssertEqual(Set(names(jar, for: URL(string: "https://www.example.com/")!)), ["d", "h"])
        XCTAssertEqual(names(jar, for: URL(string: "https://api.example.com./")!), ["d"])
        jar.store(setCookies: ["h=3; Path=/"], from: URL(string: "https://www.example.com./")!)
        XCTAssertEqual(jar.cookies.filter { $0.name == "h" }.map(\.value), ["3"], "the same host set the same cookie twice")
    }

    func testACookieWithAControlCharacterIsNotStored() {
        let jar = CookieJar()
        jar.store(setCookies: ["a=1\u{01}; Path=/", "b\u{7F}=2; Path=/", "c=3\u{1B}\u{301}; Path=/"], from: https)
        XCTAssertEqual(jar.cookies, [])
    }

    func testAMaxAgeNegativePastIntRemovesTheCookie() {
        let jar = CookieJar()
        jar.store(setCookies: ["a=1; Path=/"], from: https)
        jar.store(setCookies: ["a=gone; Path=/; Max-Age=-99999999999999999999"], from: https)
        XCTAssertEqual(jar.cookies, [])
    }

    func testAMaxAgePastIntKeepsTheCookieDespiteAPastExpires() {
        let jar = CookieJar()
        jar.store(setCookies: ["a=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=99999999999999999999"], from: https)
        XCTAssertEqual(jar.cookies.map(\.name), ["a"])
    }

    func testNamesAreComparedAsBytes() {
        let jar = CookieJar()
        jar.store(setCookies: ["\u{E9}=precomposed; Path=/", "e\u{301}=combining; Path=/"], from: https)
        XCTAssertEqual(Set(jar.cookies.map(\.value)), ["precomposed", "combining"], "one cookie replaced another of different bytes")
    }

    func testJoinedSetCookieValuesAreSplitAtACommaFollowedByACombiningMark() {
        XCTAssertEqual(CookieJar.splitJoinedSetCookie("a=1,\u{301}b=2; Path=/").map { Array($0.unicodeScalars) },
                       [Array("a=1".unicodeScalars), Array("\u{301}b=2; Path=/".unicodeScalars)])
    }
}
