import AFLocking
import AFNetworkingTesting
import AFSerialization
@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A manager's tasks and its `ResponseCache`, answered by a stub (no socket): what is answered
/// from the cache, validated or sent, what each cache policy does, what is stored and what an
/// unsafe request invalidates. The rules alone are `CacheRulesTests`.
final class ResponseCachingStubTests: XCTestCase {
    private let base = URL(string: "https://api.example.com")!
    private var itemURL: URL { base.appendingPathComponent("item") }

    private func manager(_ stubs: StubTransport, cache: ResponseCache = ResponseCache()) -> URLSessionManager {
        let manager = makeManager(stubs: stubs)
        manager.responseCache = cache
        return manager
    }

    private func get(_ manager: URLSessionManager, policy: URLRequest.CachePolicy = .useProtocolCachePolicy,
                     fields: [String: String] = [:]) throws -> Completion {
        var request = URLRequest(url: itemURL, cachePolicy: policy)
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        return try run(request, on: manager)
    }

    private func reply(_ text: String, _ fields: [String: String]) -> StubReply {
        .status(200, fields: fields.merging(["Content-Type": "text/plain"]) { first, _ in first }, body: Data(text.utf8))
    }

    func testAFreshResponseAnswersTheNextGetWithoutTheNetwork() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["Cache-Control": "max-age=3600"]), reply("second", [:])])
        let manager = manager(stubs)
        XCTAssertEqual(try get(manager).text, "first")
        let cached = try get(manager)
        XCTAssertEqual(cached.text, "first")
        XCTAssertEqual(cached.status, 200)
        XCTAssertEqual(cached.response?.value(forHTTPHeaderField: "Cache-Control"), "max-age=3600")
        XCTAssertEqual(stubs.requests.count, 1)
    }

    func testAResponseValidatedByANotModifiedIsTheStoredBodyWithItsStatus() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304, fields: ["ETag": "\"v1\""]))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "no-cache"]))
        let manager = manager(stubs)
        XCTAssertEqual(try get(manager).text, "first")
        let revalidated = try get(manager)
        XCTAssertNil(revalidated.error)
        XCTAssertEqual(revalidated.status, 200)
        XCTAssertEqual(revalidated.text, "first")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\""])
    }

    func testALastModifiedResponseIsValidatedWithIfModifiedSince() throws {
        let stubs = StubTransport(baseURL: base)
        let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"
        stubs.on("GET", "/item", headers: ["If-Modified-Since": lastModified]).reply(.status(304))
        stubs.on("GET", "/item").reply(reply("first", ["Last-Modified": lastModified, "Cache-Control": "max-age=0"]))
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual(try get(manager).text, "first")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-Modified-Since") }, [nil, lastModified])
    }

    func testANotModifiedRenewsTheStoredResponsesFreshness() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304, fields: ["Cache-Control": "max-age=3600"]))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=0"]))
        let manager = manager(stubs)
        _ = try get(manager)
        _ = try get(manager)
        let third = try get(manager)
        XCTAssertEqual(third.text, "first")
        XCTAssertEqual(third.response?.value(forHTTPHeaderField: "Cache-Control"), "max-age=3600")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testAChangedResourceReplacesTheStoredResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=0"]),
                                          reply("second", ["ETag": "\"v2\"", "Cache-Control": "max-age=3600"])])
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual(try get(manager).text, "second")
        XCTAssertEqual(try get(manager).text, "second")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testANoStoreResponseIsNotKept() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "no-store, max-age=3600"]))
        let manager = manager(stubs)
        _ = try get(manager)
        _ = try get(manager)
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testASuccessfulPostInvalidatesTheStoredResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "max-age=3600"]))
        stubs.on("POST", "/item").reply(.status(204))
        let manager = manager(stubs)
        _ = try get(manager)
        _ = try run(URLRequest("POST", itemURL, body: "change"), on: manager)
        _ = try get(manager)
        XCTAssertEqual(stubs.requests.map(\.method), ["GET", "POST", "GET"])
    }

    func testReturnCacheDataDontLoadWithNothingStoredFailsAsUnavailableWithoutSending() throws {
        let stubs = StubTransport(baseURL: base)
        let completion = try get(manager(stubs), policy: .returnCacheDataDontLoad)
        XCTAssertEqual((completion.error as? URLError)?.code, .resourceUnavailable)
        XCTAssertEqual((completion.error as? URLError)?.failingURL, itemURL)
        XCTAssertEqual(stubs.requests.count, 0)
    }

    func testOnlyIfCachedWithNothingStoredFailsAsUnavailable() throws {
        let stubs = StubTransport(baseURL: base)
        let completion = try get(manager(stubs), fields: ["Cache-Control": "only-if-cached"])
        XCTAssertEqual((completion.error as? URLError)?.code, .resourceUnavailable)
        XCTAssertEqual(stubs.requests.count, 0)
    }

    func testReturnCacheDataElseLoadTakesAStaleResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["Cache-Control": "max-age=0"]), reply("second", [:])])
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual(try get(manager, policy: .returnCacheDataElseLoad).text, "first")
        XCTAssertEqual(stubs.requests.count, 1)
    }

    func testReloadIgnoringLocalCacheDataSendsAndStoresTheNewResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["Cache-Control": "max-age=3600"]), reply("second", ["Cache-Control": "max-age=3600"])])
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual(try get(manager, policy: .reloadIgnoringLocalCacheData).text, "second")
        XCTAssertEqual(try get(manager).text, "second")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testASharedCacheKeepsNoPrivateResponseButAPrivateCacheDoes() throws {
        for (shared, sent) in [(true, 2), (false, 1)] {
            let stubs = StubTransport(baseURL: base)
            stubs.on("GET", "/item").reply(reply("mine", ["Cache-Control": "private, max-age=3600"]))
            let manager = manager(stubs, cache: ResponseCache(isShared: shared))
            _ = try get(manager)
            _ = try get(manager)
            XCTAssertEqual(stubs.requests.count, sent, "shared: \(shared)")
        }
    }

    func testASharedCacheDoesNotAnswerAnotherAuthorizedRequestWithAResponseThatDoesNotAllowIt() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("for alice", ["Cache-Control": "max-age=3600"]))
        let manager = manager(stubs)
        _ = try get(manager, fields: ["Authorization": "Bearer alice"])
        _ = try get(manager, fields: ["Authorization": "Bearer bob"])
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer alice", "Bearer bob"])
    }

    func testVaryKeepsOneResponsePerValue() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["Accept-Language": "fr"]).reply(reply("bonjour", ["Cache-Control": "max-age=3600", "Vary": "Accept-Language"]))
        stubs.on("GET", "/item").reply(reply("hello", ["Cache-Control": "max-age=3600", "Vary": "Accept-Language"]))
        let manager = manager(stubs)
        XCTAssertEqual(try get(manager, fields: ["Accept-Language": "fr"]).text, "bonjour")
        XCTAssertEqual(try get(manager, fields: ["Accept-Language": "en"]).text, "hello")
        XCTAssertEqual(try get(manager, fields: ["Accept-Language": "fr"]).text, "bonjour")
        XCTAssertEqual(try get(manager, fields: ["Accept-Language": "en"]).text, "hello")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testAStaleResponseStandsInForAServerErrorWithinStaleIfError() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=0, stale-if-error=3600"]),
                                          .status(503, body: Data("down".utf8))])
        let manager = manager(stubs)
        _ = try get(manager)
        let answer = try get(manager)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, "first")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testAStaleResponseStandsInForAFailedValidationWithinStaleIfError() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=0, stale-if-error=3600"]),
                                          .failure(.cannotConnectToHost)])
        let manager = manager(stubs)
        _ = try get(manager)
        let answer = try get(manager)
        XCTAssertNil(answer.error)
        XCTAssertEqual(answer.text, "first")
    }

    func testWithoutStaleIfErrorAFailedValidationFails() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=0"]), .failure(.cannotConnectToHost)])
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual((try get(manager).error as? URLError)?.code, .cannotConnectToHost)
    }

    func testAResponseReachedThroughARedirectIsNotStored() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(.redirect(to: "/moved"))
        stubs.on("GET", "/moved").reply(reply("moved", ["Cache-Control": "max-age=3600"]))
        let manager = manager(stubs)
        _ = try get(manager)
        _ = try get(manager)
        XCTAssertEqual(stubs.requests.map { $0.url?.path }, ["/item", "/moved", "/item", "/moved"])
    }

    /// Adds a bearer token to each attempt, as an `Authenticator` does.
    private struct SignsRequests: RequestInterceptor {
        func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
            var signed = request
            signed.setValue("Bearer alice", forHTTPHeaderField: "Authorization")
            return signed
        }
    }

    func testAResponseToAnInterceptorsCredentialsStaysOutOfASharedCache() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("for alice", ["Cache-Control": "max-age=3600"]))
        let alice = makeManager(stubs: stubs, interceptor: SignsRequests())
        let shared = ResponseCache()
        alice.responseCache = shared
        _ = try get(alice)
        let bob = manager(stubs, cache: shared)
        _ = try get(bob)
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer alice", nil])
    }

    func testAResponseToABasicAnswerStaysOutOfASharedCache() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["Authorization": "Basic dXNlcjpwYXNz"]).reply(reply("inside", ["Cache-Control": "max-age=3600"]))
        stubs.on("GET", "/item").reply(.basicChallenge())
        let manager = manager(stubs)
        manager.credential = URLCredential(user: "user", password: "pass", persistence: .none)
        XCTAssertEqual(try get(manager).text, "inside")
        XCTAssertEqual(try get(manager).text, "inside")
        XCTAssertEqual(stubs.requests.count, 4)
    }

    func testANotModifiedThatSetsACookieIsNotKeptInASharedCache() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304, fields: ["Set-Cookie": "session=alice"]))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "no-cache"]))
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual(try get(manager).text, "first")
        let third = try get(manager)
        XCTAssertNil(third.response?.value(forHTTPHeaderField: "Set-Cookie"))
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\"", nil])
    }

    func testAValidationRedirectedElsewhereTakesNoValidatorsThereAndLeavesTheStoredResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.redirect(to: "https://other.example.com/item"))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "no-cache"]))
        stubs.on("GET", "https://other.example.com/item").reply(.status(304, fields: ["Cache-Control": "max-age=31536000"]))
        let manager = manager(stubs)
        _ = try get(manager)
        let redirected = try get(manager)
        XCTAssertEqual(redirected.status, 304)
        _ = try get(manager)
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\"", nil, "\"v1\"", nil])
    }

    func testAStaleResponseAnswersWhileItIsRevalidatedInTheBackground() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304, fields: ["Cache-Control": "max-age=3600"]))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=0, stale-while-revalidate=600"]))
        let manager = manager(stubs)
        let outcomes = recordOutcomes(of: manager)
        _ = try get(manager)
        XCTAssertEqual(try get(manager).text, "first")
        // The background validation completes as a task of its own.
        let deadline = Date().addingTimeInterval(10)
        while outcomes.withLock({ $0.count }) < 3, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(try get(manager).text, "first")
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .staleWhileRevalidating, .revalidated, .hit])
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\""])
    }

    func testABackgroundValidationRunsThroughTheCacheThatAnsweredWhateverTheManagerHasNow() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304, fields: ["Cache-Control": "max-age=3600"]))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=0, stale-while-revalidate=600"]))
        let cache = ResponseCache()
        let other = ResponseCache()
        let manager = manager(stubs, cache: cache)
        let outcomes = recordOutcomes(of: manager)
        _ = try get(manager)
        // Answered by the cache it was made with, while the manager has another by then.
        _ = try run(URLRequest(url: itemURL), on: manager) { _ in manager.responseCache = other }
        let deadline = Date().addingTimeInterval(10)
        while outcomes.withLock({ $0.count }) < 3, Date() < deadline { usleep(1_000) }
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .staleWhileRevalidating, .revalidated])
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\""])
        XCTAssertEqual(other.currentMemoryUsage, 0)
        // The first cache's response was renewed by the 304.
        manager.responseCache = cache
        XCTAssertEqual(try get(manager).text, "first")
        XCTAssertEqual(outcomes.withLock { $0.last }, .hit)
    }

    func testAResponseAfterARedirectThatAddedCookiesStaysOutOfASharedCache() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["Cookie": "session=alice"]).reply(reply("alice's page", ["Cache-Control": "max-age=3600"]))
        stubs.on("GET", "/item").reply(.status(302, fields: ["Location": "/item", "Set-Cookie": "session=alice"]))
        let shared = ResponseCache()
        XCTAssertEqual(try get(manager(stubs, cache: shared)).text, "alice's page")
        let bob = manager(stubs, cache: shared)
        bob.overrides.taskWillPerformHTTPRedirection = { _, _, _, _ in nil }
        XCTAssertEqual(try get(bob).status, 302)
        XCTAssertEqual(stubs.requests.count, 3)
    }

    func testAReloadThatFailsIsNotAnsweredByTheStoredResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["Cache-Control": "max-age=3600, stale-if-error=3600"]), .failure(.cannotConnectToHost)])
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual((try get(manager, policy: .reloadIgnoringLocalCacheData).error as? URLError)?.code, .cannotConnectToHost)
    }

    func testARetryAfterARedirectedValidationValidatesAgain() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).replies([.redirect(to: "/elsewhere"), .status(304)])
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "no-cache"]))
        stubs.on("GET", "/elsewhere").reply(.status(503))
        let manager = manager(stubs)
        manager.interceptor = RetryPolicy(maximumRetries: 1, budget: nil, jitter: { _ in 0 })
        _ = try get(manager)
        let answer = try get(manager)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, "first")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\"", nil, "\"v1\""])
    }

    func testWhatTheWillCacheResponseOverrideMakesIsHeldToTheRules() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "max-age=3600"]))
        let manager = manager(stubs)
        manager.overrides.dataTaskWillCacheResponse = { _, _, proposed in
            let response = proposed.response as? HTTPURLResponse
            let changed = HTTPURLResponse(url: response!.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                          headerFields: ["Cache-Control": "private, max-age=3600"])!
            return CachedURLResponse(response: changed, data: proposed.data, userInfo: nil, storagePolicy: .allowedInMemoryOnly)
        }
        _ = try get(manager)
        _ = try get(manager)
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testStaleIfErrorStandsInForAFailureWithoutAValidator() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["Cache-Control": "max-age=0, stale-if-error=3600"]), .failure(.cannotConnectToHost)])
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual(try get(manager).text, "first")
    }

    func testA501IsNotAnErrorAStaleResponseStandsInFor() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=0, stale-if-error=3600"]), .status(501)])
        let manager = manager(stubs)
        _ = try get(manager)
        XCTAssertEqual(try get(manager).status, 501)
    }

    func testAnAnswerFromTheCacheCarriesItsAge() throws {
        let clock = TestClock()
        // Sent 100 seconds before it arrived (its Date), then kept 30 seconds.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: clock.date.addingTimeInterval(-100))
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "max-age=3600", "Date": date]))
        let manager = manager(stubs, cache: ResponseCache(memoryCapacity: 1 << 20, disk: nil, isShared: true, now: { clock.date }))
        _ = try get(manager)
        clock.advance(30)
        XCTAssertEqual(try get(manager).response?.value(forHTTPHeaderField: "Age"), "130")
    }

    func testACacheOnlyRequestTheCacheCannotAnswerIsNeverSent() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", [:]))
        let completion = try get(manager(stubs), policy: .returnCacheDataDontLoad, fields: ["If-None-Match": "\"v1\""])
        XCTAssertEqual((completion.error as? URLError)?.code, .resourceUnavailable)
        XCTAssertEqual(stubs.requests.count, 0)
    }

    func testAStoredBodyPastTheTasksLimitIsFetchedUnderTheLimit() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(.status(200, fields: ["Cache-Control": "max-age=3600"], body: Data(count: 100)))
        let cache = ResponseCache()
        _ = try get(manager(stubs, cache: cache))
        let limited = manager(stubs, cache: cache)
        limited.responseLimits = ResponseLimits(maximumBodySize: 50)
        let completion = try get(limited)
        XCTAssertNotNil(completion.error)
        XCTAssertEqual(stubs.requests.count, 2)
    }

    // MARK: Time and disk

    /// A clock the test moves: the cache's rules read it instead of the system's.
    private final class TestClock: Sendable {
        private let now = Locked(Date(timeIntervalSinceReferenceDate: 800_000_000))
        var date: Date { now.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    func testAResponseIsFreshUntilItsMaxAgeThenValidated() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304, fields: ["ETag": "\"v1\""]))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "max-age=60"]))
        let clock = TestClock()
        let manager = manager(stubs, cache: ResponseCache(memoryCapacity: 1 << 20, disk: nil, isShared: true, now: { clock.date }))
        let outcomes = recordOutcomes(of: manager)
        _ = try get(manager)
        clock.advance(59)
        XCTAssertEqual(try get(manager).response?.value(forHTTPHeaderField: "Age"), "59")
        clock.advance(2)
        XCTAssertEqual(try get(manager).text, "first")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, "\"v1\""])
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .hit, .revalidated])
    }

    func testAStaleResponseStandsInForAFailureOnlyWithinItsStaleIfErrorWindow() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["Cache-Control": "max-age=10, stale-if-error=20"]),
                                          .status(503), .status(503)])
        let clock = TestClock()
        let manager = manager(stubs, cache: ResponseCache(memoryCapacity: 1 << 20, disk: nil, isShared: true, now: { clock.date }))
        _ = try get(manager)
        clock.advance(29)
        XCTAssertEqual(try get(manager).text, "first")
        clock.advance(2)
        XCTAssertEqual(try get(manager).status, 503)
    }

    func testAResponseStoredOnDiskAnswersAnotherManagersCacheOnTheDirectory() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let directory = scratch.url.appendingPathComponent("cache")
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["Cache-Control": "max-age=3600"]), reply("second", [:])])
        do {
            let cache = try ResponseCache(diskCapacity: 1 << 20, directory: directory)
            let first = manager(stubs, cache: cache)
            _ = try get(first)
            cache.waitForDiskWrites()
            // The directory is free once no manager holds the cache (a process that ended).
            first.responseCache = nil
        }
        let later = manager(stubs, cache: try reopenedCache(at: directory))
        XCTAssertEqual(try get(later).text, "first")
        XCTAssertEqual(stubs.requests.count, 1)
    }

    // MARK: Metrics and the willCacheResponse override

    /// The cache outcomes of the tasks `manager` completes from now on, in order.
    private func recordOutcomes(of manager: URLSessionManager) -> Locked<[CacheOutcome]> {
        let outcomes = Locked<[CacheOutcome]>([])
        manager.overrides.taskDidFinishCollectingMetrics = { _, _, metrics in outcomes.withLock { $0.append(metrics.cacheOutcome) } }
        return outcomes
    }

    func testTheMetricsSayAMissThenAHit() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "max-age=3600"]))
        let manager = manager(stubs)
        let outcomes = recordOutcomes(of: manager)
        _ = try get(manager)
        _ = try get(manager)
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .hit])
    }

    func testTheMetricsSayRevalidated() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "no-cache"]))
        let manager = manager(stubs)
        let outcomes = recordOutcomes(of: manager)
        _ = try get(manager)
        _ = try get(manager)
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .revalidated])
    }

    func testTheMetricsSayStaleAndUnavailableAndNotUsed() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("first", ["Cache-Control": "max-age=0, stale-if-error=3600"]), .status(503)])
        stubs.on("POST", "/item").reply(.status(500))
        let manager = manager(stubs)
        let outcomes = recordOutcomes(of: manager)
        _ = try get(manager)
        _ = try get(manager)
        _ = try run(URLRequest(url: base.appendingPathComponent("other"), cachePolicy: .returnCacheDataDontLoad), on: manager)
        _ = try run(URLRequest("POST", itemURL, body: "x"), on: manager)
        XCTAssertEqual(outcomes.withLock { $0 }, [.miss, .stale, .unavailable, .notUsed])
    }

    /// Waits up to 10 s for `lines` to satisfy `condition`: the monitors hear of a completion
    /// on their own queue, apart from its handler.
    private func waitUntil(_ lines: Locked<[String]>, _ condition: @escaping @Sendable ([String]) -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        while !lines.withLock({ condition($0) }), Date() < deadline { usleep(1_000) }
    }

    func testTheRequestLoggerNamesTheCacheOutcome() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "max-age=3600"]))
        let lines = Locked<[String]>([])
        let manager = manager(stubs)
        manager.eventMonitors = [RequestLogger { line in lines.withLock { $0.append(line) } }]
        _ = try get(manager)
        _ = try get(manager)
        waitUntil(lines) { $0.filter { $0.contains(" -> ") }.count == 2 }
        let completions = lines.withLock { $0 }.filter { $0.contains(" -> ") }
        XCTAssertEqual(completions.count, 2)
        XCTAssertTrue(completions.first?.hasSuffix(", cache miss") == true, "\(completions)")
        XCTAssertTrue(completions.last?.hasSuffix(", cache hit") == true, "\(completions)")
    }

    func testTheRequestLoggerShowsTheValidatorsAValidationSent() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "no-cache"]))
        let lines = Locked<[String]>([])
        let manager = manager(stubs)
        manager.eventMonitors = [RequestLogger(includesHeaders: true) { line in lines.withLock { $0.append(line) } }]
        _ = try get(manager)
        _ = try get(manager)
        waitUntil(lines) { $0.contains { $0.contains("cache revalidated") } }
        let line = lines.withLock { $0 }.first { $0.contains("cache revalidated") }
        XCTAssertTrue(line?.contains("If-None-Match: \"v1\"") == true, "\(lines.withLock { $0 })")
    }

    func testAValidatingTasksCurrentRequestAndItsCurlCommandCarryTheValidators() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item", headers: ["If-None-Match": "\"v1\""]).reply(.status(304))
        stubs.on("GET", "/item").reply(reply("first", ["ETag": "\"v1\"", "Cache-Control": "no-cache"]))
        let manager = manager(stubs)
        _ = try get(manager)
        let sent = Locked<URLRequest?>(nil)
        // The override runs after the completion handler was scheduled, as in AFNetworking: waited
        // for, and only for this task (the first one's may run after it is set).
        let overridden = expectation(description: "taskDidComplete")
        _ = try run(URLRequest(url: itemURL), on: manager) { validating in
            manager.overrides.taskDidComplete = { _, task, _ in
                guard task === validating else { return }
                sent.withLock { $0 = task.currentRequest }
                overridden.fulfill()
            }
        }
        wait(for: [overridden], timeout: 5)
        XCTAssertEqual(sent.withLock { $0 }?.curlCommand(), #"curl 'https://api.example.com/item' -H 'If-None-Match: "v1"'"#)
    }

    func testTheWillCacheResponseOverrideMayRefuseAResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "max-age=3600"]))
        let manager = manager(stubs)
        manager.overrides.dataTaskWillCacheResponse = { _, _, _ in nil }
        _ = try get(manager)
        _ = try get(manager)
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testTheWillCacheResponseOverrideMayChangeWhatIsStoredOnTheDelegateQueue() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "max-age=3600"]))
        let manager = manager(stubs)
        let onDelegateQueue = Locked<Bool?>(nil)
        manager.overrides.dataTaskWillCacheResponse = { [queue = manager.operationQueue] _, _, proposed in
            onDelegateQueue.withLock { $0 = OperationQueue.current === queue }
            return CachedURLResponse(response: proposed.response, data: Data("changed".utf8), userInfo: nil, storagePolicy: .allowedInMemoryOnly)
        }
        // Completions then run on the delegate queue too: asking the override there must not wait for itself.
        manager.overrides.taskDidComplete = { _, _, _ in }
        XCTAssertEqual(try get(manager).text, "first")
        XCTAssertEqual(try get(manager).text, "changed")
        XCTAssertEqual(onDelegateQueue.withLock { $0 }, true)
    }

    func testAManagerWithoutACacheSendsEveryRequest() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").reply(reply("first", ["Cache-Control": "max-age=3600"]))
        let manager = makeManager(stubs: stubs)
        _ = try get(manager)
        _ = try get(manager)
        XCTAssertEqual(stubs.requests.count, 2)
    }

    // MARK: The key, on the stub

    func testVarySeesTheAuthorizationAnInterceptorAddedOnTheStub() throws {
        let stubs = StubTransport(baseURL: base)
        for user in ["alice", "bob"] {
            stubs.on("GET", "/item", headers: ["Authorization": "Bearer \(user)"])
                .reply(reply("\(user)'s", ["Cache-Control": "public, max-age=600", "Vary": "Authorization"]))
        }
        let cache = ResponseCache()
        let alice = makeManager(stubs: stubs, interceptor: HeaderInterceptor(name: "Authorization") { _ in "Bearer alice" })
        alice.responseCache = cache
        let bob = makeManager(stubs: stubs, interceptor: HeaderInterceptor(name: "Authorization") { _ in "Bearer bob" })
        bob.responseCache = cache
        XCTAssertEqual(try get(alice).text, "alice's")
        XCTAssertEqual(try get(bob).text, "bob's")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testEachHostFieldHasItsOwnResponsesOnTheStub() throws {
        let stubs = StubTransport(baseURL: base)
        for tenant in ["a", "b"] {
            stubs.on("GET", "/item", headers: ["Host": "tenant-\(tenant).example"]).reply(reply("tenant \(tenant)", ["Cache-Control": "max-age=600"]))
        }
        let manager = manager(stubs)
        XCTAssertEqual(try get(manager, fields: ["Host": "tenant-a.example"]).text, "tenant a")
        XCTAssertEqual(try get(manager, fields: ["Host": "tenant-b.example"]).text, "tenant b")
        XCTAssertEqual(try get(manager, fields: ["Host": "tenant-a.example"]).text, "tenant a")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testAGetWithABodyIsNeitherAnsweredNorStoredOnTheStub() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/item").replies([reply("alice's result", ["Cache-Control": "public, max-age=600"]), reply("bob's result", [:])])
        let manager = manager(stubs)
        var search = URLRequest(url: itemURL)
        search.httpBody = Data(#"{"user":"alice"}"#.utf8)
        XCTAssertEqual(try run(search, on: manager).text, "alice's result")
        search.httpBody = Data(#"{"user":"bob"}"#.utf8)
        XCTAssertEqual(try run(search, on: manager).text, "bob's result")
        XCTAssertEqual(stubs.requests.count, 2)
    }
}
