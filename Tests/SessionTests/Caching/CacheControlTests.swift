@testable import AFSession
import XCTest

/// `Cache-Control` directives read as bytes (RFC 9111, 5.2), without a server.
final class CacheControlTests: XCTestCase {
    func testDirectivesAreReadInAnyCaseWithTheirArguments() {
        let control = CacheControl("Max-Age=60, S-MAXAGE=30, no-cache, No-Store, private, public, must-revalidate, proxy-revalidate")
        XCTAssertEqual(control.maxAge, 60)
        XCTAssertEqual(control.sharedMaxAge, 30)
        XCTAssertTrue(control.noCache && control.noStore && control.isPrivate && control.isPublic)
        XCTAssertTrue(control.mustRevalidate && control.proxyRevalidate)
    }

    func testTheRequestDirectivesAreRead() {
        let control = CacheControl("max-stale=10, min-fresh=5, only-if-cached")
        XCTAssertEqual(control.maxStale, 10)
        XCTAssertEqual(control.minFresh, 5)
        XCTAssertTrue(control.onlyIfCached)
    }

    func testMaxStaleWithoutAnArgumentAcceptsAnyStaleness() {
        XCTAssertEqual(CacheControl("max-stale").maxStale, Int.max)
    }

    func testRFC5861DirectivesAreRead() {
        let control = CacheControl("stale-while-revalidate=30, stale-if-error=600")
        XCTAssertEqual(control.staleWhileRevalidate, 30)
        XCTAssertEqual(control.staleIfError, 600)
    }

    func testAQuotedArgumentIsUnquoted() {
        XCTAssertEqual(CacheControl("max-age=\"120\"").maxAge, 120)
        XCTAssertTrue(CacheControl("private=\"Set-Cookie, X-A\", max-age=5").isPrivate)
        XCTAssertEqual(CacheControl("private=\"Set-Cookie, X-A\", max-age=5").maxAge, 5)
    }

    func testAMaxAgeThatIsNotANumberMakesTheResponseStale() {
        XCTAssertEqual(CacheControl("max-age=soon").maxAge, 0)
        XCTAssertEqual(CacheControl("max-age=-1").maxAge, 0)
        XCTAssertEqual(CacheControl("max-age").maxAge, 0)
        XCTAssertEqual(CacheControl("s-maxage=1.5").sharedMaxAge, 0)
    }

    func testARepeatedDirectiveTakesItsMostRestrictiveValue() {
        XCTAssertEqual(CacheControl("max-age=600, max-age=60").maxAge, 60)
        XCTAssertEqual(CacheControl("max-age=60, max-age=600").maxAge, 60)
    }

    func testAnArgumentPastTwoToTheThirtyFirstIsTwoToTheThirtyFirst() {
        XCTAssertEqual(CacheControl("max-age=99999999999999999999999").maxAge, 2_147_483_648)
    }

    func testUnknownDirectivesAndGarbageAreSkipped() {
        let control = CacheControl(" , immutable, x=\"a,b\", max-age=5 junk, no-store ,,")
        XCTAssertNil(control.maxAge)
        XCTAssertTrue(control.noStore)
    }

    func testARestrictiveDirectiveInAMalformedElementStillRestricts() {
        XCTAssertTrue(CacheControl("private max-age=600").isPrivate)
        XCTAssertNil(CacheControl("private max-age=600").maxAge)
        XCTAssertTrue(CacheControl("no-store junk").noStore)
    }

    func testAPermissiveDirectiveFollowedByACombiningMarkIsNotThatDirective() {
        XCTAssertFalse(CacheControl("public\u{301}").isPublic)
        XCTAssertNil(CacheControl("max-age\u{301}=60").maxAge)
        XCTAssertNil(CacheControl("s-maxage=6\u{301}0").sharedMaxAge)
    }

    func testARestrictiveDirectiveFollowedByACombiningMarkStillRestricts() {
        XCTAssertTrue(CacheControl("no-store\u{301}").noStore)
        XCTAssertTrue(CacheControl("private\u{301}, max-age=60").isPrivate)
    }

    func testNoValueHasNoDirectives() {
        XCTAssertEqual(CacheControl(nil), CacheControl(""))
        XCTAssertFalse(CacheControl(nil).noStore)
    }
}
