import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP caching's rules (RFC 9111, with RFC 5861's `stale-if-error`), and what each
/// `URLRequest.CachePolicy` means, as pure functions of the request, the stored response and
/// the time: which responses are stored, how old and how fresh a stored response is, whether a
/// request is answered from it, validated or sent, how a `304 Not Modified` updates it, and
/// which stored responses an unsafe request invalidates. A shared cache (`ResponseCache`'s
/// default) follows the shared-cache rules. Tested without a server.
enum CacheRules {
    /// What a request does with the cache.
    enum Decision: Equatable {
        /// Answered by the stored response, without the network.
        case use(CachedResponse)
        /// Answered by the stale stored response, which is validated meanwhile (RFC 5861's
        /// `stale-while-revalidate`).
        case useWhileRevalidating(CachedResponse)
        /// Sent with the stored response's validators (`conditionalRequest`); a `304` answers
        /// it with the stored response, updated (`updated`).
        case validate(CachedResponse)
        /// Sent as it is; its response may be stored.
        case fetch
        /// Answered by the cache only, which has nothing suitable: `returnCacheDataDontLoad`,
        /// or `Cache-Control: only-if-cached` (RFC 9111, 5.2.1.7: a 504 in a proxy).
        case unavailable
    }

    /// The statuses a response may be stored with and given a heuristic lifetime without
    /// explicit freshness (RFC 9110, 15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The fraction of the time since `Last-Modified` a heuristic lifetime is (RFC 9111, 4.2.2's
    /// typical 10%), and its most: a day.
    static let heuristicFraction = 0.1
    static let maximumHeuristicLifetime: TimeInterval = 86_400
    /// The fields a cache never stores: the connection's own (RFC 9111, 3.1).
    static let connectionFields: Set<String> = ["connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade"]
    /// The request fields that make a request conditional or partial: the caller's own
    /// validation or range, which the cache leaves alone (it neither answers nor stores it).
    static let callerConditionalFields = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    // MARK: Which requests and responses

    /// Whether `request` takes part in caching at all: a GET (methods are case-sensitive)
    /// without a body (a search API's query: its result is the body's, which no key holds),
    /// without credentials in its URL (a user and password: one user's, which no key may
    /// hold), and without validators or a range of the caller's own.
    static func isCacheable(_ request: URLRequest) -> Bool {
        isBodilessGet(request) && request.url?.user == nil && request.url?.password == nil
            && callerConditionalFields.allSatisfy { request.value(forHTTPHeaderField: $0) == nil }
    }

    /// Whether `request` is a GET without a body: what the cache asked about must still be one
    /// as it goes out (an interceptor may make it another method, or give it a body).
    static func isBodilessGet(_ request: URLRequest) -> Bool {
        (request.httpMethod ?? "GET") == "GET" && request.httpBodyStream == nil && (request.httpBody?.isEmpty ?? true)
    }

    /// Whether `request` carries a user's credentials: `Authorization`, or `Cookie` (a shared
    /// cache treats a response to cookies as one user's too).
    static func carriesCredentials(_ request: URLRequest) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") != nil || request.value(forHTTPHeaderField: "Cookie") != nil
    }

    /// Whether the request `sent`, going out as `key` says, was one user's for the shared-cache
    /// rules (RFC 9111, 3.5): it carried `Authorization` or `Cookie` (the caller's, an
    /// interceptor's, the jar's), it presented a client certificate (the task's or the
    /// transport's), or a challenge was answered with a credential in a request the manager did
    /// not see (`answeredChallenge`).
    static func isCredentialed(_ sent: URLRequest, key: CacheKey, answeredChallenge: Bool) -> Bool {
        answeredChallenge || carriesCredentials(sent) || key.identity != nil
    }

    /// Whether the complete response of `status` and `fields` to `request` may be stored (RFC
    /// 9111, 3; 3.5 for a shared cache, where `credentialed` says whether what was sent carried
    /// credentials, `carriesCredentials` or added on the way). A shared cache also stores no
    /// response that sets cookies: another user's request would get them.
    static func isStorable(status: Int, for request: URLRequest, fields: [String: String], shared: Bool, credentialed: Bool) -> Bool {
        // Final statuses only (RFC 9110, 15: three digits, 2xx to 5xx), none partial or a validation's.
        guard isCacheable(request), (200...599).contains(status), status != 206, status != 304 else { return false }
        let requestControl = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        let control = CacheControl(CachedResponse.value("Cache-Control", in: fields))
        guard !requestControl.noStore, !control.noStore, varying(fields, request: request) != nil else { return false }
        if shared {
            guard !control.isPrivate, CachedResponse.value("Set-Cookie", in: fields) == nil else { return false }
            if credentialed, !(control.mustRevalidate || control.isPublic || control.sharedMaxAge != nil) { return false }
        }
        let explicit = control.maxAge != nil || (shared && control.sharedMaxAge != nil) || CachedResponse.value("Expires", in: fields) != nil
        return explicit || control.isPublic || (!shared && control.isPrivate) || heuristicallyCacheable.contains(status)
    }

    /// The request's values of the fields `fields`' `Vary` names, by lower-cased name (RFC
    /// 9111, 4.1); `nil` for `Vary: *`, which no later request matches.
    static func varying(_ fields: [String: String], request: URLRequest) -> [String: String?]? {
        guard let vary = CachedResponse.value("Vary", in: fields) else { return [:] }
        var result: [String: String?] = [:]
        for element in vary.split(separator: ",") {
            let name = HTTPToken.asciiLowercased(element.trimmingCharacters(in: .whitespaces))
            if name == "*" { return nil }
            if !name.isEmpty { result[name] = normalized(request.value(forHTTPHeaderField: name)) }
        }
        return result
    }

    /// Whether `request`, going out as `key` says, is one `entry` answers: the same URL and
    /// `Host`, through the same socket and route with the same client certificate, and the
    /// same values of the fields its `Vary` names.
    static func matches(_ entry: CachedResponse, _ request: URLRequest, key: CacheKey) -> Bool {
        entry.isStored(under: key) && entry.varying.allSatisfy { name, value in normalized(request.value(forHTTPHeaderField: name)) == value }
    }

    /// A field's value as `Vary` compares it: without the whitespace around it.
    private static func normalized(_ value: String?) -> String? {
        value?.trimmingCharacters(in: .whitespaces)
    }

    // MARK: Age and freshness

    /// How long `entry` is fresh from when it was made (RFC 9111, 4.2.1): `s-maxage` (in a
    /// shared cache), `max-age`, `Expires` less `Date`, or a heuristic share of the time since
    /// `Last-Modified` where the status allows one (4.2.2); an invalid value makes it stale.
    static func freshnessLifetime(of entry: CachedResponse, shared: Bool) -> TimeInterval {
        let control = CacheControl(entry.value("Cache-Control"))
        if shared, let seconds = control.sharedMaxAge { return TimeInterval(seconds) }
        if let seconds = control.maxAge { return TimeInterval(seconds) }
        let date = dateValue(of: entry)
        if let expires = entry.value("Expires") {
            return HTTPDate.parse(expires).map { max(0, $0.timeIntervalSince(date)) } ?? 0
        }
        guard heuristicallyCacheable.contains(entry.statusCode) || control.isPublic,
              let lastModified = entry.value("Last-Modified").flatMap({ HTTPDate.parse($0) }) else { return 0 }
        return min(max(0, date.timeIntervalSince(lastModified)) * heuristicFraction, maximumHeuristicLifetime)
    }

    /// How old `entry` is at `now` (RFC 9111, 4.2.3): its `Age` and the delays of its exchange,
    /// and the time since it arrived.
    static func currentAge(of entry: CachedResponse, now: Date) -> TimeInterval {
        let ageValue = entry.value("Age").flatMap { value -> TimeInterval? in
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return TimeInterval(min(Int(trimmed) ?? CacheControl.maximumDeltaSeconds, CacheControl.maximumDeltaSeconds))
        } ?? 0
        let apparentAge = max(0, entry.responseTime.timeIntervalSince(dateValue(of: entry)))
        let responseDelay = max(0, entry.responseTime.timeIntervalSince(entry.requestTime))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(entry.responseTime))
    }

    /// The response's `Date`, or when it arrived when it has none that reads.
    private static func dateValue(of entry: CachedResponse) -> Date {
        entry.value("Date").flatMap { HTTPDate.parse($0) } ?? entry.responseTime
    }

    // MARK: The decision

    /// What `request` does with the stored `entry` (the one matching it, if any) at `now`, under
    /// its cache policy and `Cache-Control`:
    /// - `useProtocolCachePolicy`: RFC 9111: a fresh response is used (a request's `max-age`,
    ///   `min-fresh` and `no-cache`, or `Pragma: no-cache`, narrowing that, its `max-stale`
    ///   widening it unless the response says `must-revalidate`, or `proxy-revalidate` in a
    ///   shared cache); a stale one with a validator (`ETag`, `Last-Modified`) is validated;
    ///   otherwise the request is sent.
    /// - `reloadIgnoringLocalCacheData` and `reloadIgnoringLocalAndRemoteCacheData`: sent; the
    ///   response may be stored.
    /// - `returnCacheDataElseLoad`: the stored response whatever its age, else sent.
    /// - `returnCacheDataDontLoad`: the stored response whatever its age, else `unavailable`.
    /// - `reloadRevalidatingCacheData`: validated when it can be, else sent (how the cache
    ///   validates a response it answered with under `stale-while-revalidate`).
    ///
    /// In a shared cache, a response stored for a request with credentials (RFC 9111, 3.5) is
    /// used by the two `returnCacheData` policies only as the rules allow.
    static func decision(for request: URLRequest, entry: CachedResponse?, shared: Bool, now: Date) -> Decision {
        var requestControl = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        let anyAge = entry.map { !(shared && $0.storedWithCredentials) } ?? true
        switch request.cachePolicy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            return .fetch
        case .returnCacheDataElseLoad where anyAge:
            return entry.map { .use($0) } ?? .fetch
        case .returnCacheDataDontLoad where anyAge:
            return entry.map { .use($0) } ?? .unavailable
        case .returnCacheDataDontLoad:
            requestControl.onlyIfCached = true
        default:
            break
        }
        guard let entry else { return requestControl.onlyIfCached ? .unavailable : .fetch }
        if request.cachePolicy != .reloadRevalidatingCacheData, isUsable(entry, requestControl: requestControl, request: request, shared: shared, now: now) {
            return .use(entry)
        }
        if requestControl.onlyIfCached { return .unavailable }
        if request.cachePolicy != .reloadRevalidatingCacheData, servesStaleWhileRevalidating(entry, requestControl: requestControl, shared: shared, now: now) {
            return .useWhileRevalidating(entry)
        }
        return entry.value("ETag") != nil || entry.value("Last-Modified") != nil ? .validate(entry) : .fetch
    }

    /// Whether `entry` answers the request without validation.
    private static func isUsable(_ entry: CachedResponse, requestControl: CacheControl, request: URLRequest, shared: Bool, now: Date) -> Bool {
        let control = CacheControl(entry.value("Cache-Control"))
        let pragmaNoCache = request.value(forHTTPHeaderField: "Cache-Control") == nil
            && CacheControl.directives(of: Array((request.value(forHTTPHeaderField: "Pragma") ?? "").utf8)).contains { $0.name == "no-cache" }
        guard !control.noCache, !requestControl.noCache, !pragmaNoCache else { return false }
        let age = currentAge(of: entry, now: now)
        let lifetime = freshnessLifetime(of: entry, shared: shared)
        if let maxAge = requestControl.maxAge, age > TimeInterval(maxAge) { return false }
        if let minFresh = requestControl.minFresh, lifetime - age < TimeInterval(minFresh) { return false }
        if age < lifetime { return true }
        guard let maxStale = requestControl.maxStale, !control.mustRevalidate, !Self.revalidatesWhenStale(control, shared: shared) else { return false }
        return maxStale == Int.max || age - lifetime <= TimeInterval(maxStale)
    }

    /// Whether a stale `entry` may answer while it is validated (RFC 5861's
    /// `stale-while-revalidate`): within the response's window, unless it or the request asks
    /// for validation first (`no-cache`, `must-revalidate`, and `proxy-revalidate` in a shared
    /// cache) or the request bounds the age (`max-age`).
    private static func servesStaleWhileRevalidating(_ entry: CachedResponse, requestControl: CacheControl, shared: Bool, now: Date) -> Bool {
        let control = CacheControl(entry.value("Cache-Control"))
        guard let window = control.staleWhileRevalidate, !control.noCache, !control.mustRevalidate, !Self.revalidatesWhenStale(control, shared: shared),
              !requestControl.noCache, requestControl.maxAge == nil else { return false }
        return currentAge(of: entry, now: now) - freshnessLifetime(of: entry, shared: shared) <= TimeInterval(window)
    }

    /// Whether `control` forbids a shared cache to use a stale response without validation:
    /// `proxy-revalidate`, or `s-maxage`, which implies it (RFC 9111, 5.2.2.10).
    private static func revalidatesWhenStale(_ control: CacheControl, shared: Bool) -> Bool {
        shared && (control.proxyRevalidate || control.sharedMaxAge != nil)
    }

    /// The server errors a stale response may stand in for (RFC 5861, 4).
    static let staleIfErrorStatuses: Set<Int> = [500, 502, 503, 504]

    /// Whether a stale `entry` may answer in place of a failure or a 500, 502, 503 or 504
    /// response (RFC 5861's `stale-if-error`, from the response's or the request's
    /// `Cache-Control`).
    static func servesStaleOnError(_ entry: CachedResponse, request: URLRequest, shared: Bool, now: Date) -> Bool {
        let control = CacheControl(entry.value("Cache-Control"))
        let requestControl = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        // `no-cache` forbids any use without a successful validation (RFC 9111, 5.2.2.4).
        guard let window = requestControl.staleIfError ?? control.staleIfError, !control.noCache, !control.mustRevalidate,
              !Self.revalidatesWhenStale(control, shared: shared) else { return false }
        return currentAge(of: entry, now: now) - freshnessLifetime(of: entry, shared: shared) <= TimeInterval(window)
    }

    // MARK: Validation

    /// `request` asking whether `entry` is still current (RFC 9111, 4.3.1): `If-None-Match`
    /// with its `ETag`, `If-Modified-Since` with its `Last-Modified`.
    static func conditionalRequest(_ request: URLRequest, validating entry: CachedResponse) -> URLRequest {
        var conditional = request
        if let tag = entry.value("ETag") { conditional.setValue(tag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified = entry.value("Last-Modified") { conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        return conditional
    }

    /// Whether a `304` with `fields` is about `entry` (RFC 9111, 4.3.4): it names no strong
    /// `ETag` other than the stored one.
    static func notModifiedMatches(_ entry: CachedResponse, fields: [String: String]) -> Bool {
        guard let tag = CachedResponse.value("ETag", in: fields), !tag.hasPrefix("W/") else { return true }
        return entry.value("ETag") == tag
    }

    /// `entry` updated by the `304` `fields` that validated it (RFC 9111, 4.3.4 and 3.2): each
    /// field replaced or added, but for `Content-Length` and the connection's own; the times of
    /// the validating exchange.
    static func updated(_ entry: CachedResponse, with fields: [String: String], requestTime: Date, responseTime: Date) -> CachedResponse {
        var updated = entry
        for (name, value) in fields {
            let lowercased = HTTPToken.asciiLowercased(name)
            guard lowercased != "content-length", !connectionFields.contains(lowercased) else { continue }
            if let existing = updated.fields.keys.first(where: { HTTPToken.equalIgnoringASCIICase($0.utf8, name.utf8) }) { updated.fields[existing] = nil }
            updated.fields[name] = value
        }
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// The fields of a response as they are stored with a body of `bodyLength` bytes: without
    /// the connection's own, and a `Content-Length` saying the body's length. The transports
    /// decode a `Content-Encoding`, so the stored body is longer than the length sent for it,
    /// and the stored body is framed by its own length.
    static func storedFields(_ fields: [String: String], bodyLength: Int) -> [String: String] {
        var stored = fields.filter { !connectionFields.contains(HTTPToken.asciiLowercased($0.key)) }
        if let name = stored.keys.first(where: { HTTPToken.equalIgnoringASCIICase($0.utf8, "content-length".utf8) }) {
            stored[name] = String(bodyLength)
        }
        return stored
    }

    // MARK: Invalidation

    /// The targets whose stored responses an unsafe request invalidates (RFC 9111, 4.4), when
    /// its response of `status` with `fields` answered it at `answered` (after redirects): the
    /// request's own target (`key`), which a redirect's status did not fail, and the target that
    /// answered with its `Location` and `Content-Location` when they are of the answering
    /// origin (the authority the server was asked for: the request's `Host` where it was sent
    /// with it); none for a safe method or an error. Targets are compared normalized
    /// (`CacheKey.target`).
    static func invalidatedTargets(method: String, key: CacheKey, answered: URL, status: Int, fields: [String: String]) -> [String] {
        guard !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method), (200..<400).contains(status),
              let requested = URL(string: key.url) else { return [] }
        // The request's `Host` field names the target only at the origin it was sent to.
        let sameOrigin = RedirectPolicy.origin(of: answered) == RedirectPolicy.origin(of: requested)
        let answeringTarget = CacheKey(url: answered, host: sameOrigin ? key.host : nil).target
        var targets = [key.target, answeringTarget]
        if let base = URL(string: answeringTarget) {
            for name in ["Location", "Content-Location"] {
                guard let value = CachedResponse.value(name, in: fields), let location = URL(string: value, relativeTo: base)?.absoluteURL,
                      RedirectPolicy.origin(of: location) == RedirectPolicy.origin(of: base) else { continue }
                targets.append(CacheKey.target(of: location))
            }
        }
        var seen: Set<String> = []
        return targets.filter { seen.insert($0).inserted }
    }
}
