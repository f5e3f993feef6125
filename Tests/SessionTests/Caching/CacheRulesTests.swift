@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// HTTP caching's rules (RFC 9111, RFC 5861) and the cache policies, as pure functions of the
/// request, the stored response and the time, without a server.
final class CacheRulesTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/v1/items")!
    /// The moment the stored responses arrived: Sun, 06 Nov 1994 08:49:37 GMT.
    private let arrival = Date(timeIntervalSince1970: 784_111_777)
    private let arrivalText = "Sun, 06 Nov 1994 08:49:37 GMT"

    private func entry(_ fields: [String: String], status: Int = 200, dated: Bool = true) -> CachedResponse {
        var fields = fields
        if dated, fields["Date"] == nil { fields["Date"] = arrivalText }
        return CachedResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", fields: fields, body: Data("stored".utf8),
                              requestTime: arrival, responseTime: arrival, varying: [:])
    }

    private func request(_ fields: [String: String] = [:], policy: URLRequest.CachePolicy = .useProtocolCachePolicy, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: policy)
        request.httpMethod = method
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Whether a response of `status` and `fields` to `request` may be stored, credentials
    /// being what the request carries.
    private func storable(_ status: Int, _ request: URLRequest, fields: [String: String], shared: Bool) -> Bool {
        CacheRules.isStorable(status: status, for: request, fields: fields, shared: shared, credentialed: CacheRules.carriesCredentials(request))
    }

    private func later(_ seconds: TimeInterval) -> Date { arrival.addingTimeInterval(seconds) }

    // MARK: Storing

    func testAResponseWithExplicitFreshnessIsStorable() {
        XCTAssertTrue(storable(200, request(), fields: ["Cache-Control": "max-age=60"], shared: true))
        XCTAssertTrue(storable(500, request(), fields: ["Expires": arrivalText], shared: true))
    }

    func testAHeuristicallyCacheableStatusIsStorableWithoutFreshness() {
        XCTAssertTrue(storable(404, request(), fields: [:], shared: true))
        XCTAssertFalse(storable(500, request(), fields: [:], shared: true))
        XCTAssertFalse(storable(201, request(), fields: [:], shared: true))
    }

    func testNoStoreOnEitherSideIsNeverStored() {
        XCTAssertFalse(storable(200, request(), fields: ["Cache-Control": "no-store, max-age=60"], shared: false))
        XCTAssertFalse(storable(200, request(["Cache-Control": "no-store"]), fields: ["Cache-Control": "max-age=60"], shared: false))
    }

    func testAPrivateResponseIsStoredOnlyByAPrivateCache() {
        XCTAssertFalse(storable(200, request(), fields: ["Cache-Control": "private, max-age=60"], shared: true))
        XCTAssertTrue(storable(200, request(), fields: ["Cache-Control": "private, max-age=60"], shared: false))
    }

    func testASharedCacheStoresAResponseToAnAuthorizedRequestOnlyWhereTheResponseAllowsIt() {
        let authorized = request(["Authorization": "Bearer t"])
        XCTAssertFalse(storable(200, authorized, fields: ["Cache-Control": "max-age=60"], shared: true))
        for allowing in ["public, max-age=60", "s-maxage=60", "must-revalidate, max-age=60"] {
            XCTAssertTrue(storable(200, authorized, fields: ["Cache-Control": allowing], shared: true), allowing)
        }
        XCTAssertTrue(storable(200, authorized, fields: ["Cache-Control": "max-age=60"], shared: false))
    }

    func testASharedCacheDoesNotStoreAResponseThatSetsCookies() {
        let fields = ["Cache-Control": "max-age=60", "Set-Cookie": "session=1"]
        XCTAssertFalse(storable(200, request(), fields: fields, shared: true))
        XCTAssertTrue(storable(200, request(), fields: fields, shared: false))
    }

    func testASharedCacheTreatsAResponseToCookiesAsOneUsers() {
        XCTAssertFalse(storable(200, request(["Cookie": "session=1"]), fields: ["Cache-Control": "max-age=60"], shared: true))
        XCTAssertTrue(storable(200, request(["Cookie": "session=1"]), fields: ["Cache-Control": "public, max-age=60"], shared: true))
    }

    func testCredentialsAddedOnTheWayCountAsTheRequests() {
        XCTAssertFalse(CacheRules.isStorable(status: 200, for: request(), fields: ["Cache-Control": "max-age=60"], shared: true, credentialed: true))
    }

    func testVaryStarIsNeverStored() {
        XCTAssertFalse(storable(200, request(), fields: ["Cache-Control": "max-age=60", "Vary": "*"], shared: false))
    }

    func testOnlyPlainGetsTakePart() {
        XCTAssertFalse(CacheRules.isCacheable(request(method: "POST")))
        XCTAssertFalse(CacheRules.isCacheable(request(["If-None-Match": "\"a\""])))
        XCTAssertFalse(CacheRules.isCacheable(request(["Range": "bytes=0-1"])))
        XCTAssertTrue(CacheRules.isCacheable(request()))
        XCTAssertFalse(storable(206, request(), fields: ["Cache-Control": "max-age=60"], shared: false))
    }

    func testAStatusPast599IsNotStored() {
        XCTAssertFalse(storable(600, request(), fields: ["Cache-Control": "max-age=60"], shared: false))
        XCTAssertFalse(storable(999, request(), fields: ["Cache-Control": "max-age=60"], shared: false))
        XCTAssertTrue(storable(599, request(), fields: ["Cache-Control": "max-age=60"], shared: false))
    }

    // MARK: Freshness and age

    func testSharedMaxAgeCountsInASharedCacheOnly() {
        let stored = entry(["Cache-Control": "max-age=60, s-maxage=600"])
        XCTAssertEqual(CacheRules.freshnessLifetime(of: stored, shared: true), 600)
        XCTAssertEqual(CacheRules.freshnessLifetime(of: stored, shared: false), 60)
    }

    func testMaxAgeWinsOverExpires() {
        XCTAssertEqual(CacheRules.freshnessLifetime(of: entry(["Cache-Control": "max-age=60", "Expires": "Sun, 06 Nov 1994 09:49:37 GMT"]), shared: true), 60)
    }

    func testExpiresCountsFromTheResponsesDate() {
        XCTAssertEqual(CacheRules.freshnessLifetime(of: entry(["Expires": "Sun, 06 Nov 1994 09:49:37 GMT"]), shared: true), 3_600)
    }

    func testAnExpiresThatDoesNotReadIsAlreadyStale() {
        XCTAssertEqual(CacheRules.freshnessLifetime(of: entry(["Expires": "0"]), shared: true), 0)
    }

    func testTheHeuristicIsATenthOfTheTimeSinceLastModifiedAtMostADay() {
        XCTAssertEqual(CacheRules.freshnessLifetime(of: entry(["Last-Modified": "Sun, 06 Nov 1994 07:49:37 GMT"]), shared: true), 360)
        XCTAssertEqual(CacheRules.freshnessLifetime(of: entry(["Last-Modified": "Sun, 06 Nov 1984 07:49:37 GMT"]), shared: true), 86_400)
    }

    func testNoHeuristicForAStatusThatIsNotHeuristicallyCacheable() {
        XCTAssertEqual(CacheRules.freshnessLifetime(of: entry(["Last-Modified": "Sun, 06 Nov 1994 07:49:37 GMT"], status: 500), shared: true), 0)
    }

    func testTheAgeCountsTheAgeFieldTheExchangeAndTheTimeSinceArrival() {
        var stored = entry(["Age": "100"])
        stored.requestTime = arrival.addingTimeInterval(-2)
        XCTAssertEqual(CacheRules.currentAge(of: stored, now: later(30)), 132)
    }

    func testADateInThePastAgesTheResponse() {
        let stored = entry(["Date": "Sun, 06 Nov 1994 08:48:37 GMT"])
        XCTAssertEqual(CacheRules.currentAge(of: stored, now: arrival), 60)
    }

    func testAnAgeThatIsNotANumberCountsAsNone() {
        XCTAssertEqual(CacheRules.currentAge(of: entry(["Age": "old"]), now: arrival), 0)
    }

    // MARK: Deciding

    func testAFreshResponseIsUsed() {
        let stored = entry(["Cache-Control": "max-age=60"])
        XCTAssertEqual(CacheRules.decision(for: request(), entry: stored, shared: true, now: later(59)), .use(stored))
    }

    func testAStaleResponseWithAValidatorIsValidated() {
        let stored = entry(["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(), entry: stored, shared: true, now: later(60)), .validate(stored))
    }

    func testAStaleResponseWithoutAValidatorIsFetchedAgain() {
        XCTAssertEqual(CacheRules.decision(for: request(), entry: entry(["Cache-Control": "max-age=60"]), shared: true, now: later(61)), .fetch)
    }

    func testNoStoredResponseIsFetched() {
        XCTAssertEqual(CacheRules.decision(for: request(), entry: nil, shared: true, now: arrival), .fetch)
    }

    func testNoCacheOnEitherSideValidatesAFreshResponse() {
        let stored = entry(["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "no-cache"]), entry: stored, shared: true, now: arrival), .validate(stored))
        XCTAssertEqual(CacheRules.decision(for: request(["Pragma": "no-cache"]), entry: stored, shared: true, now: arrival), .validate(stored))
        let noCache = entry(["Cache-Control": "no-cache, max-age=60", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(), entry: noCache, shared: true, now: arrival), .validate(noCache))
    }

    func testARequestsMaxAgeAndMinFreshNarrowFreshness() {
        let stored = entry(["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "max-age=10"]), entry: stored, shared: true, now: later(20)), .validate(stored))
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "min-fresh=50"]), entry: stored, shared: true, now: later(20)), .validate(stored))
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "min-fresh=30"]), entry: stored, shared: true, now: later(20)), .use(stored))
    }

    func testMaxStaleAcceptsAStaleResponseUnlessItMustRevalidate() {
        let stored = entry(["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "max-stale=30"]), entry: stored, shared: true, now: later(80)), .use(stored))
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "max-stale=30"]), entry: stored, shared: true, now: later(100)), .validate(stored))
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "max-stale"]), entry: stored, shared: true, now: later(10_000)), .use(stored))
        let strict = entry(["Cache-Control": "max-age=60, must-revalidate", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "max-stale"]), entry: strict, shared: true, now: later(80)), .validate(strict))
    }

    func testProxyRevalidateBindsASharedCacheOnly() {
        let stored = entry(["Cache-Control": "max-age=60, proxy-revalidate", "ETag": "\"v1\""])
        let lenient = request(["Cache-Control": "max-stale"])
        XCTAssertEqual(CacheRules.decision(for: lenient, entry: stored, shared: true, now: later(80)), .validate(stored))
        XCTAssertEqual(CacheRules.decision(for: lenient, entry: stored, shared: false, now: later(80)), .use(stored))
    }

    func testSharedMaxAgeForbidsASharedCacheToServeItStale() {
        let stored = entry(["Cache-Control": "s-maxage=60, stale-while-revalidate=600, stale-if-error=600", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "max-stale"]), entry: stored, shared: true, now: later(80)), .validate(stored))
        XCTAssertFalse(CacheRules.servesStaleOnError(stored, request: request(), shared: true, now: later(80)))
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "max-stale"]), entry: stored, shared: false, now: later(80)), .use(stored))
    }

    func testOnlyIfCachedIsAnsweredByAUsableResponseOrNotAtAll() {
        let stored = entry(["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        let onlyIfCached = request(["Cache-Control": "only-if-cached"])
        XCTAssertEqual(CacheRules.decision(for: onlyIfCached, entry: stored, shared: true, now: later(10)), .use(stored))
        XCTAssertEqual(CacheRules.decision(for: onlyIfCached, entry: stored, shared: true, now: later(100)), .unavailable)
        XCTAssertEqual(CacheRules.decision(for: onlyIfCached, entry: nil, shared: true, now: arrival), .unavailable)
    }

    func testTheReloadPoliciesAlwaysFetch() {
        let stored = entry(["Cache-Control": "max-age=60"])
        for policy: URLRequest.CachePolicy in [.reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData] {
            XCTAssertEqual(CacheRules.decision(for: request(policy: policy), entry: stored, shared: true, now: arrival), .fetch)
        }
    }

    func testReturnCacheDataElseLoadUsesAnyStoredResponseElseFetches() {
        let stale = entry(["Cache-Control": "no-cache, max-age=0"])
        XCTAssertEqual(CacheRules.decision(for: request(policy: .returnCacheDataElseLoad), entry: stale, shared: true, now: later(1e6)), .use(stale))
        XCTAssertEqual(CacheRules.decision(for: request(policy: .returnCacheDataElseLoad), entry: nil, shared: true, now: arrival), .fetch)
    }

    func testReturnCacheDataDontLoadUsesAnyStoredResponseElseIsUnavailable() {
        let stale = entry(["Cache-Control": "max-age=0"])
        XCTAssertEqual(CacheRules.decision(for: request(policy: .returnCacheDataDontLoad), entry: stale, shared: true, now: later(1e6)), .use(stale))
        XCTAssertEqual(CacheRules.decision(for: request(policy: .returnCacheDataDontLoad), entry: nil, shared: true, now: arrival), .unavailable)
    }

    func testTheReturnCacheDataPoliciesFollowTheRulesForAResponseStoredWithCredentialsInASharedCache() {
        var stored = entry(["Cache-Control": "max-age=60, must-revalidate", "ETag": "\"v1\""])
        stored.storedWithCredentials = true
        XCTAssertEqual(CacheRules.decision(for: request(policy: .returnCacheDataElseLoad), entry: stored, shared: true, now: later(100)), .validate(stored))
        XCTAssertEqual(CacheRules.decision(for: request(policy: .returnCacheDataDontLoad), entry: stored, shared: true, now: later(100)), .unavailable)
        XCTAssertEqual(CacheRules.decision(for: request(policy: .returnCacheDataDontLoad), entry: stored, shared: true, now: later(10)), .use(stored))
        XCTAssertEqual(CacheRules.decision(for: request(policy: .returnCacheDataElseLoad), entry: stored, shared: false, now: later(100)), .use(stored))
    }

    func testReloadRevalidatingValidatesEvenAFreshResponse() {
        let stored = entry(["Cache-Control": "max-age=60", "Last-Modified": "Sun, 06 Nov 1994 07:49:37 GMT"])
        XCTAssertEqual(CacheRules.decision(for: request(policy: .reloadRevalidatingCacheData), entry: stored, shared: true, now: arrival), .validate(stored))
    }

    func testStaleWhileRevalidateAnswersWithinItsWindowWhileValidating() {
        let stored = entry(["Cache-Control": "max-age=60, stale-while-revalidate=30", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(), entry: stored, shared: true, now: later(80)), .useWhileRevalidating(stored))
        XCTAssertEqual(CacheRules.decision(for: request(), entry: stored, shared: true, now: later(100)), .validate(stored))
        XCTAssertEqual(CacheRules.decision(for: request(["Cache-Control": "no-cache"]), entry: stored, shared: true, now: later(80)), .validate(stored))
        XCTAssertEqual(CacheRules.decision(for: request(policy: .reloadRevalidatingCacheData), entry: stored, shared: true, now: later(80)), .validate(stored))
        let strict = entry(["Cache-Control": "max-age=60, stale-while-revalidate=30, must-revalidate", "ETag": "\"v1\""])
        XCTAssertEqual(CacheRules.decision(for: request(), entry: strict, shared: true, now: later(80)), .validate(strict))
    }

    func testStaleIfErrorAllowsAStaleResponseWithinItsWindow() {
        let stored = entry(["Cache-Control": "max-age=60, stale-if-error=100"])
        XCTAssertTrue(CacheRules.servesStaleOnError(stored, request: request(), shared: true, now: later(150)))
        XCTAssertFalse(CacheRules.servesStaleOnError(stored, request: request(), shared: true, now: later(170)))
        XCTAssertFalse(CacheRules.servesStaleOnError(entry(["Cache-Control": "max-age=60"]), request: request(), shared: true, now: later(61)))
        XCTAssertTrue(CacheRules.servesStaleOnError(entry(["Cache-Control": "max-age=60"]), request: request(["Cache-Control": "stale-if-error=30"]),
                                                    shared: true, now: later(61)))
        XCTAssertFalse(CacheRules.servesStaleOnError(entry(["Cache-Control": "max-age=60, stale-if-error=100, must-revalidate"]), request: request(),
                                                     shared: true, now: later(61)))
    }

    func testANoCacheResponseNeverStandsInForAnError() {
        // RFC 9111, 5.2.2.4: never used without a successful validation, whatever the request allows.
        let asked = request(["Cache-Control": "stale-if-error=600"])
        XCTAssertFalse(CacheRules.servesStaleOnError(entry(["Cache-Control": "no-cache"]), request: asked, shared: true, now: later(1)))
        XCTAssertFalse(CacheRules.servesStaleOnError(entry(["Cache-Control": "no-cache, max-age=600"]), request: asked, shared: true, now: later(1)))
        XCTAssertFalse(CacheRules.servesStaleOnError(entry(["Cache-Control": "no-cache, stale-if-error=600"]), request: request(), shared: false, now: later(1)))
    }

    // MARK: Validating

    func testTheConditionalRequestCarriesBothValidators() {
        let stored = entry(["ETag": "\"v1\"", "Last-Modified": "Sun, 06 Nov 1994 07:49:37 GMT"])
        let conditional = CacheRules.conditionalRequest(request(), validating: stored)
        XCTAssertEqual(conditional.value(forHTTPHeaderField: "If-None-Match"), "\"v1\"")
        XCTAssertEqual(conditional.value(forHTTPHeaderField: "If-Modified-Since"), "Sun, 06 Nov 1994 07:49:37 GMT")
    }

    func testANotModifiedUpdatesTheStoredFieldsButItsLengthAndTheConnectionsOwn() {
        let stored = entry(["Cache-Control": "max-age=60", "ETag": "\"v1\"", "Content-Length": "6", "X-Old": "kept"])
        let updated = CacheRules.updated(stored, with: ["cache-control": "max-age=600", "Content-Length": "0", "Connection": "close", "X-New": "added"],
                                         requestTime: later(100), responseTime: later(101))
        XCTAssertEqual(updated.value("Cache-Control"), "max-age=600")
        XCTAssertEqual(updated.fields.keys.filter { $0.lowercased() == "cache-control" }.count, 1)
        XCTAssertEqual(updated.value("Content-Length"), "6")
        XCTAssertNil(updated.value("Connection"))
        XCTAssertEqual(updated.value("X-New"), "added")
        XCTAssertEqual(updated.value("X-Old"), "kept")
        XCTAssertEqual(updated.body, stored.body)
        XCTAssertEqual(updated.statusCode, 200)
        XCTAssertEqual(updated.responseTime, later(101))
    }

    func testANotModifiedNamingAnotherStrongETagIsNotAboutTheStoredResponse() {
        let stored = entry(["ETag": "\"v1\""])
        XCTAssertFalse(CacheRules.notModifiedMatches(stored, fields: ["ETag": "\"v2\""]))
        XCTAssertTrue(CacheRules.notModifiedMatches(stored, fields: ["ETag": "\"v1\""]))
        XCTAssertTrue(CacheRules.notModifiedMatches(stored, fields: ["ETag": "W/\"v2\""]))
        XCTAssertTrue(CacheRules.notModifiedMatches(stored, fields: [:]))
    }

    func testTheConnectionsOwnFieldsAreNotStored() {
        XCTAssertEqual(CacheRules.storedFields(["Connection": "keep-alive", "Keep-Alive": "timeout=5", "Transfer-Encoding": "chunked", "ETag": "\"a\""],
                                               bodyLength: 0),
                       ["ETag": "\"a\""])
    }

    func testAStoredContentLengthIsTheStoredBodysLength() {
        // A gzip body of 20 bytes the transport decoded into 100.
        XCTAssertEqual(CacheRules.storedFields(["content-length": "20", "Content-Encoding": "gzip"], bodyLength: 100),
                       ["content-length": "100", "Content-Encoding": "gzip"])
        XCTAssertEqual(CacheRules.storedFields(["ETag": "\"a\""], bodyLength: 100), ["ETag": "\"a\""])
    }

    // MARK: Vary

    func testVaryRecordsTheRequestsValuesAndMatchesThemOnly() {
        let varying = CacheRules.varying(["Vary": "Accept-Language, Accept"], request: request(["Accept-Language": " fr "]))
        XCTAssertEqual(varying, ["accept-language": Optional("fr"), "accept": Optional<String>.none])
        var stored = entry(["Cache-Control": "max-age=60"])
        stored.varying = varying ?? [:]
        let key = CacheKey(url: url, host: nil, socketPath: nil, identity: nil)
        XCTAssertTrue(CacheRules.matches(stored, request(["Accept-Language": "fr"]), key: key))
        XCTAssertFalse(CacheRules.matches(stored, request(["Accept-Language": "de"]), key: key))
        XCTAssertFalse(CacheRules.matches(stored, request(["Accept-Language": "fr", "Accept": "text/html"]), key: key))
    }

    func testAStoredResponseAnswersOnlyThroughItsSocketAndWithItsCertificate() {
        var stored = entry(["Cache-Control": "max-age=60"])
        (stored.socketPath, stored.identity) = ("/run/api.sock", "pin-a")
        let key = { (socket: String?, identity: String?) in CacheKey(url: self.url, host: nil, socketPath: socket, identity: identity) }
        XCTAssertTrue(CacheRules.matches(stored, request(), key: key("/run/api.sock", "pin-a")))
        XCTAssertFalse(CacheRules.matches(stored, request(), key: key(nil, "pin-a")), "over TCP")
        XCTAssertFalse(CacheRules.matches(stored, request(), key: key("/run/other.sock", "pin-a")))
        XCTAssertFalse(CacheRules.matches(stored, request(), key: key("/run/api.sock", "pin-b")), "another certificate")
        XCTAssertFalse(CacheRules.matches(stored, request(), key: key("/run/api.sock", nil)), "no certificate")
    }

    // MARK: Which requests

    func testAGetWithABodyTakesNoPartInCaching() {
        var search = request()
        search.httpBody = Data(#"{"query":"alice"}"#.utf8)
        XCTAssertFalse(CacheRules.isCacheable(search))
        search.httpBody = nil
        search.httpBodyStream = InputStream(data: Data("q".utf8))
        XCTAssertFalse(CacheRules.isCacheable(search))
        search.httpBodyStream = nil
        XCTAssertTrue(CacheRules.isCacheable(search))
        XCTAssertFalse(CacheRules.isStorable(status: 200, for: { var r = request(); r.httpBody = Data("q".utf8); return r }(),
                                             fields: ["Cache-Control": "max-age=60"], shared: true, credentialed: false))
    }

    // MARK: Invalidation

    private func key(_ url: URL, host: String? = nil) -> CacheKey {
        CacheKey(url: url, host: host, socketPath: nil, identity: nil)
    }

    func testASuccessfulUnsafeRequestInvalidatesItsTargetAndSameOriginLocations() {
        let targets = CacheRules.invalidatedTargets(method: "POST", key: key(url), answered: url, status: 201,
                                                    fields: ["Location": "/v1/items/7", "Content-Location": "https://other.example.com/v1/items/7"])
        XCTAssertEqual(targets, ["https://api.example.com/v1/items", "https://api.example.com/v1/items/7"])
    }

    func testASafeRequestOrAnErrorInvalidatesNothing() {
        XCTAssertEqual(CacheRules.invalidatedTargets(method: "GET", key: key(url), answered: url, status: 200, fields: [:]), [])
        XCTAssertEqual(CacheRules.invalidatedTargets(method: "DELETE", key: key(url), answered: url, status: 500, fields: [:]), [])
        XCTAssertEqual(CacheRules.invalidatedTargets(method: "DELETE", key: key(url), answered: url, status: 204, fields: [:]),
                       ["https://api.example.com/v1/items"])
    }

    func testAnUnsafeRequestRedirectedInvalidatesTheTargetThatAnswered() {
        // POST /item/a -> 307 -> POST /item/b: /item/b changed.
        let first = URL(string: "https://api.example.com/item/a")!
        let answered = URL(string: "https://api.example.com/item/b")!
        XCTAssertEqual(CacheRules.invalidatedTargets(method: "POST", key: key(first), answered: answered, status: 200, fields: [:]),
                       ["https://api.example.com/item/a", "https://api.example.com/item/b"])
    }

    func testALocationIsInvalidatedOnlyAtTheOriginThatAnswered() {
        // A 307 led to another origin, whose 201 names the first origin's resource: not its to invalidate.
        let first = URL(string: "https://api.example.com/item/a")!
        let answered = URL(string: "https://evil.example.net/create")!
        let targets = CacheRules.invalidatedTargets(method: "POST", key: key(first), answered: answered, status: 201,
                                                    fields: ["Location": "https://api.example.com/item/victim", "Content-Location": "/made/1"])
        XCTAssertEqual(targets, ["https://api.example.com/item/a", "https://evil.example.net/create", "https://evil.example.net/made/1"])
    }

    func testAnUnsafeRequestWithItsOwnHostInvalidatesThatHostsTarget() {
        let targets = CacheRules.invalidatedTargets(method: "PUT", key: key(url, host: "tenant-a.example"), answered: url, status: 204,
                                                    fields: ["Content-Location": "/v1/items/2"])
        XCTAssertEqual(targets, ["https://tenant-a.example/v1/items", "https://tenant-a.example/v1/items/2"])
    }
}
