import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The task and its manager's `ResponseCache`, on every transport: asked before anything is
/// sent (`cacheStep`: when the transfer starts on libcurl and a stub, when the task is made on
/// URLSession's own protocol, whose task is made with the request it sends), answering in the
/// transfer's place with what it stored, taking a `304` or (RFC 5861's `stale-if-error`) a
/// failure as the stored response, and told what the task received when it completes. The
/// cache's answers reach the task as a transfer's events would, where its events happen
/// (`onEventQueue`), so that overrides, monitors, progress and the completion see what they
/// see of the network.
extension TaskDelegate {
    /// What the task does with the cache.
    enum CacheUse {
        /// Nothing: no cache, or a request it leaves alone (another method than GET, a body,
        /// the caller's own validators or range, a download).
        case none
        /// Sent as it is at `requestTime`; its response may be stored. `fallback`: the stored
        /// response that may stand in for a failure (`stale-if-error`).
        case fetching(requestTime: Date, fallback: CachedResponse?)
        /// Sent at `requestTime` with the validators of the stored `entry`.
        case validating(CachedResponse, requestTime: Date)
        /// The attempt followed a redirect: what it leads to is neither stored (another URL's,
        /// or the same URL's after a hop that may have added cookies or credentials) nor taken
        /// as the validation of `validated`, which the next attempt validates again.
        case redirected(validated: CachedResponse?, requestTime: Date)
        /// Answered by the cache as `outcome` says; `store`, the stored response a `304` updated.
        case answered(CacheOutcome, store: CachedResponse?)

        /// The stored response that may stand in for a failure of the request sent.
        var fallback: CachedResponse? {
            switch self {
            case .fetching(_, let fallback): fallback
            case .validating(let entry, _): entry
            case .none, .redirected, .answered: nil
            }
        }

        /// Whether the response the task receives may be stored: its body is kept for the cache
        /// (a streamed body too, within the cache's memory capacity).
        var storesResponse: Bool {
            switch self {
            case .fetching, .validating: true
            case .none, .redirected, .answered: false
            }
        }

        /// What the cache did for the task, once it completed.
        var outcome: CacheOutcome {
            switch self {
            case .none: .notUsed
            case .fetching, .validating, .redirected: .miss
            case .answered(let outcome, _): outcome
            }
        }
    }

    /// What the cache makes of the task's request before anything is sent.
    enum CacheStep {
        /// Send this: the request, or the request with the stored response's validators.
        case send(URLRequest)
        /// Answer with the stored response without the network; `revalidates`: and validate
        /// it in the background (`stale-while-revalidate`).
        case answer(CachedResponse, revalidates: Bool)
        /// Fail for want of a stored response that may answer (`returnCacheDataDontLoad`,
        /// `only-if-cached`): nothing is sent.
        case unavailable
    }

    /// What `cache` makes of `request`, a task's of `kind` going out as `key` says
    /// (`streamsBody`: its body goes to a stream, under a download's limits) whose own `limits`
    /// a stored body must fit, and what the task then does with the cache. `intercepted`: the
    /// task's interceptors adapt the request after the cache was asked, so that a stored
    /// response that varies on request fields (which they may set) neither answers it nor is
    /// validated by it. Reads the cache, changes nothing else.
    static func cacheStep(
        for request: URLRequest, key: CacheKey?, kind: Kind, streamsBody: Bool, intercepted: Bool, limits: ResponseLimits, cache: ResponseCache
    ) -> (step: CacheStep, use: CacheUse) {
        guard kind == .data, let key, CacheRules.isCacheable(request) else {
            // Answered by the cache alone, which this request does not use: never sent.
            let cacheOnly = request.cachePolicy == .returnCacheDataDontLoad
                || CacheControl(request.value(forHTTPHeaderField: "Cache-Control")).onlyIfCached
            return cacheOnly ? (.unavailable, .answered(.unavailable, store: nil)) : (.send(request), .none)
        }
        let now = cache.now()
        let entry = cache.entry(for: request, key: key).flatMap { intercepted && !$0.varying.isEmpty ? nil : $0 }
        var decision = CacheRules.decision(for: request, entry: entry, shared: cache.isShared, now: now)
        // A stored body past this task's own limit is fetched under the limit instead.
        if let entry, let limit = limits.sizeLimit(isDownload: streamsBody), Int64(entry.body.count) > limit.bytes {
            if case .use = decision { decision = .fetch }
            if case .useWhileRevalidating = decision { decision = .fetch }
        }
        switch decision {
        case .use(let entry):
            return (.answer(entry, revalidates: false), .answered(.hit, store: nil))
        case .useWhileRevalidating(let entry):
            return (.answer(entry, revalidates: true), .answered(.staleWhileRevalidating, store: nil))
        case .unavailable:
            return (.unavailable, .answered(.unavailable, store: nil))
        case .validate(let entry):
            return (.send(CacheRules.conditionalRequest(request, validating: entry)), .validating(entry, requestTime: now))
        case .fetch:
            // A reload asks the server alone: no stored response stands in for its failure.
            let reloads = [.reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData].contains(request.cachePolicy)
            return (.send(request), .fetching(requestTime: now, fallback: reloads ? nil : entry))
        }
    }

    /// The request the cache reads the task's rules from: the task's own, before the cache
    /// added validators (a task of URLSession's own protocol is made with them).
    var requestForCache: URLRequest? {
        (live { live, _ in live.cacheRequest } ?? nil) ?? task.originalRequest
    }

    /// The task's request as the cache makes it (`cacheStep`), the task's use of the cache
    /// recorded: `nil` when nothing is sent. `settings`: the task's, whose client certificate
    /// (or else the transport's) the key names.
    func requestAfterCache(_ request: URLRequest, settings: TaskSettings) -> URLRequest? {
        guard let cache else { return request }
        let key = cacheKey(of: request, settings: settings)
        let (step, use) = Self.cacheStep(
            for: request, key: key, kind: kind, streamsBody: streamsBody, intercepted: settings.interceptor != nil, limits: settings.limits, cache: cache)
        live { live, _ in live.cacheUse = use }
        return carryOut(step)
    }

    /// The key of `request` as this task sends it: through the transport's Unix socket and
    /// route (its security policy and proxy), with the task's client certificate or else the
    /// transport's. URLSession's own protocol has none of them (each needs libcurl).
    func cacheKey(of request: URLRequest, settings: TaskSettings) -> CacheKey? {
        let connection = carrier?.connection
        return CacheKey(request, socketPath: connection?.unixSocketPath, identity: settings.clientIdentity ?? connection?.clientIdentity,
                        route: carrier?.routeFingerprint)
    }

    /// Carries out `step` where the task's events happen (`onEventQueue`): the stored
    /// response's answer (and its background validation), or the failure for want of one
    /// (`URLError.resourceUnavailable`). Returns the request to send, `nil` when nothing is.
    func carryOut(_ step: CacheStep) -> URLRequest? {
        switch step {
        case .send(let request):
            return request
        case .answer(let entry, let revalidates):
            // Its age when it answers: a task of URLSession's own protocol answers when resumed.
            let age = cache.map { CacheRules.currentAge(of: entry, now: $0.now()) }
            // Read before the answer, which may complete the task (and let go of its settings) at once.
            let (settings, request) = (settings, requestForCache)
            onEventQueue { self.answer(with: entry, age: age) }
            if revalidates, let cache, let manager, let request, let settings,
               let key = cacheKey(of: request, settings: settings), cache.beginsRevalidation(of: key) {
                // With the task's own client certificate: the validation asks for the response this task was answered with.
                manager.revalidate(request, key: key, credential: credential, clientIdentity: settings.clientIdentity, in: cache)
            }
        case .unavailable:
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "No stored response answers the request, which may only be answered from the cache."]
            userInfo[NSURLErrorFailingURLErrorKey] = requestForCache?.url
            let error = URLError(.resourceUnavailable, userInfo: userInfo)
            onEventQueue { self.transferDidComplete(with: error) }
        }
        return nil
    }

    /// Answers the task with the stored `entry`, as a transfer would: its response (with its
    /// `Age`, RFC 9111, 5.1, when `age` is given), its body, the end; only the end for a task
    /// cancelled meanwhile.
    private func answer(with entry: CachedResponse, age: TimeInterval?) {
        var entry = entry
        if let age {
            if let name = entry.fields.keys.first(where: { HTTPToken.equalIgnoringASCIICase($0.utf8, "age".utf8) }) { entry.fields[name] = nil }
            entry.fields["Age"] = String(Int(min(age, TimeInterval(CacheControl.maximumDeltaSeconds))))
        }
        let cancelled = (task as? ManagedDataTask)?.cancellationError != nil
        if !cancelled, let response = entry.response {
            transferDidReceive(response)
            entry.body.withUnsafeBytes { transferDidReceive($0) }
        }
        transferDidComplete(with: cancelled || entry.response != nil ? nil : URLError(.cannotParseResponse))
    }

    /// What the task takes in place of a final response from the network (`storedAnswer`).
    enum StoredAnswer {
        /// The response itself.
        case none
        /// The stored response, updated by a `304` to its validation or standing in for a
        /// server error (`stale-if-error`); the transfer's own body is dropped.
        case stored(CachedResponse)
        /// Nothing: the response is a `304` to the cache's validation about another response
        /// (a strong `ETag` other than the stored one), which the caller, whose request was not
        /// conditional, must not see. The task fails with `error`; the responses stored under
        /// `target` are forgotten, so that the next request fetches anew.
        case refused(URLError, target: String)
    }

    /// What the task takes in place of `response`, which answered its request: the stored
    /// response updated by a `304` to its validation, or as it was in place of a 500, 502, 503
    /// or 504 it may stand in for (`stale-if-error`), or a failure for a `304` about another
    /// response.
    func storedAnswer(to response: HTTPURLResponse) -> StoredAnswer {
        guard let cache else { return .none }
        let answer = live { live, _ -> StoredAnswer in
            guard let fallback = live.cacheUse.fallback, let request = live.cacheRequest ?? task.originalRequest else { return .none }
            if response.statusCode == 304, case .validating(let entry, let requestTime) = live.cacheUse {
                let fields = Self.fields(of: response)
                guard response.url == entry.url, CacheRules.notModifiedMatches(entry, fields: fields) else {
                    live.cacheUse = .answered(.miss, store: nil)
                    return .refused(URLError(.badServerResponse, userInfo: [
                        NSLocalizedDescriptionKey: "The server answered the cache's validation with 304 Not Modified about another response than the one stored.",
                        NSURLErrorFailingURLErrorKey: entry.url,
                    ]), target: entry.key.target)
                }
                let updated = CacheRules.updated(entry, with: fields, requestTime: requestTime, responseTime: cache.now())
                live.cacheUse = .answered(.revalidated, store: updated)
                return .stored(updated)
            }
            guard CacheRules.staleIfErrorStatuses.contains(response.statusCode),
                  CacheRules.servesStaleOnError(fallback, request: request, shared: cache.isShared, now: cache.now()) else { return .none }
            live.cacheUse = .answered(.stale, store: nil)
            return .stored(fallback)
        } ?? .none
        if case .refused(_, let target) = answer { cache.invalidate([target]) }
        return answer
    }

    /// Answers the task with the stored response in place of the transfer's failure `error`,
    /// when it failed before any response and the stored response may stand in for a failure
    /// (`stale-if-error`). Returns whether it did.
    func answerStaleOnFailure(_ error: (any Error)?) -> Bool {
        guard let cache, let failure = error as? URLError, failure.code != .cancelled else { return false }
        let stale: CachedResponse? = live { live, shown in
            guard let fallback = live.cacheUse.fallback, shown.response == nil,
                  let request = live.cacheRequest ?? task.originalRequest,
                  CacheRules.servesStaleOnError(fallback, request: request, shared: cache.isShared, now: cache.now()) else { return nil }
            live.cacheUse = .answered(.stale, store: nil)
            return fallback
        } ?? nil
        guard let stale else { return false }
        answer(with: stale, age: CacheRules.currentAge(of: stale, now: cache.now()))
        return true
    }

    /// A redirect is followed with `request`: what it leads to neither answers a validation nor
    /// is stored, no stored response stands in for its failure, and validators the cache added
    /// do not go to the redirect's target.
    func leaveCache(redirectingWith request: URLRequest) -> URLRequest {
        guard cache != nil else { return request }
        let validating: Bool = live { live, _ in
            switch live.cacheUse {
            case .validating(let entry, let requestTime):
                live.cacheUse = .redirected(validated: entry, requestTime: requestTime)
                return true
            case .fetching(let requestTime, _):
                live.cacheUse = .redirected(validated: nil, requestTime: requestTime)
                return false
            case .none, .redirected, .answered:
                return false
            }
        } ?? false
        return validating ? Self.withoutValidators(request) : request
    }

    /// An attempt after the first starts over from the task's request: one whose previous
    /// attempt followed a redirect validates (or fetches) again.
    func returnToCache() {
        guard cache != nil else { return }
        live { live, _ in
            guard case .redirected(let validated, let requestTime) = live.cacheUse else { return }
            live.cacheUse = validated.map { .validating($0, requestTime: requestTime) } ?? .fetching(requestTime: requestTime, fallback: nil)
        }
    }

    /// `request` without the validators the cache adds.
    private static func withoutValidators(_ request: URLRequest) -> URLRequest {
        var next = request
        next.setValue(nil, forHTTPHeaderField: "If-None-Match")
        next.setValue(nil, forHTTPHeaderField: "If-Modified-Since")
        return next
    }

    /// The fields of `response` by name.
    static func fields(of response: HTTPURLResponse) -> [String: String] {
        response.allHeaderFields as? [String: String] ?? [:]
    }
}
