import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The task and its manager's `ResponseCache` (the manager's own tasks, on libcurl or a stub):
/// asked before the transfer starts (`CacheRules.decision`), answering in the transfer's place
/// with what it stored, taking a `304` or (RFC 5861's `stale-if-error`) a failure as the stored
/// response, and told what the task received when it completes. The cache's answers reach the
/// task as a transfer's events would, on the transport's queue, so that overrides, monitors,
/// progress and the completion see what they see of the network.
extension TaskDelegate {
    /// What the task does with the cache.
    enum CacheUse {
        /// Nothing: no cache, or a request it leaves alone (another method than GET, the
        /// caller's own validators or range, a stream or a download).
        case none
        /// Sent as it is at `requestTime`; its response may be stored.
        case fetching(requestTime: Date)
        /// Sent at `requestTime` with the validators of the stored `entry`.
        case validating(CachedResponse, requestTime: Date)
        /// Answered from the cache; `store`, the stored response a `304` updated.
        case answered(store: CachedResponse?)
    }

    /// The request the task's transfer sends, once the cache was asked: `request`, or with the
    /// stored response's validators; `nil` when the cache answers the task (on `transport`'s
    /// queue, where its transfer would have).
    func requestAfterCache(_ request: URLRequest, on transport: CurlTransport) -> URLRequest? {
        guard let cache = settings.cache, kind == .data, !streamsBody, CacheRules.isCacheable(request) else { return request }
        let now = Date()
        switch CacheRules.decision(for: request, entry: cache.entry(for: request), shared: cache.isShared, now: now) {
        case .use(let entry):
            state.withLock { $0.cacheUse = .answered(store: nil) }
            transport.async { self.answer(with: entry) }
            return nil
        case .unavailable:
            state.withLock { $0.cacheUse = .answered(store: nil) }
            var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "No stored response answers the request, which may only be answered from the cache."]
            userInfo[NSURLErrorFailingURLErrorKey] = request.url
            let error = URLError(.resourceUnavailable, userInfo: userInfo)
            transport.async { self.transferDidComplete(with: error) }
            return nil
        case .validate(let entry):
            state.withLock { $0.cacheUse = .validating(entry, requestTime: now) }
            return CacheRules.conditionalRequest(request, validating: entry)
        case .fetch:
            state.withLock { $0.cacheUse = .fetching(requestTime: now) }
            return request
        }
    }

    /// Answers the task with the stored `entry`, as a transfer would: its response, its body,
    /// the end.
    private func answer(with entry: CachedResponse) {
        if let response = entry.response {
            transferDidReceive(response)
            entry.body.withUnsafeBytes { transferDidReceive($0) }
        }
        transferDidComplete(with: entry.response == nil ? URLError(.cannotParseResponse) : nil)
    }

    /// The stored response the task takes in place of `response`, which answered its
    /// validation: updated by a `304`, or as it was in place of a 5xx it may stand in for
    /// (`stale-if-error`); `nil` to take `response`. The transfer's own body is then dropped.
    func storedAnswer(to response: HTTPURLResponse) -> CachedResponse? {
        state.withLock { state -> CachedResponse? in
            guard case .validating(let entry, let requestTime) = state.cacheUse, let cache = state.settings.cache,
                  let request = task.originalRequest else { return nil }
            if response.statusCode == 304 {
                let updated = CacheRules.updated(entry, with: Self.fields(of: response), requestTime: requestTime, responseTime: Date())
                state.cacheUse = .answered(store: updated)
                return updated
            }
            guard response.statusCode >= 500, CacheRules.servesStaleOnError(entry, request: request, shared: cache.isShared, now: Date()) else { return nil }
            state.cacheUse = .answered(store: nil)
            return entry
        }
    }

    /// Answers the task with the stored response in place of the transfer's failure `error`,
    /// when it failed validating one before any response, and the response may stand in for
    /// a failure (`stale-if-error`). Returns whether it did.
    func answerStaleOnFailure(_ error: (any Error)?) -> Bool {
        guard let failure = error as? URLError, failure.code != .cancelled else { return false }
        let stale: CachedResponse? = state.withLock { state in
            guard case .validating(let entry, _) = state.cacheUse, let cache = state.settings.cache, state.response == nil,
                  let request = task.originalRequest,
                  CacheRules.servesStaleOnError(entry, request: request, shared: cache.isShared, now: Date()) else { return nil }
            state.cacheUse = .answered(store: nil)
            return entry
        }
        guard let stale else { return false }
        answer(with: stale)
        return true
    }

    /// Tells the cache what the completed task received: an unsafe request's success
    /// invalidates what it changed; a response from the network that may be stored is, with
    /// its body, unless a redirect led to it; a stored response a `304` updated is kept.
    func recordInCache(_ snapshot: State, response: HTTPURLResponse?, error: (any Error)?) {
        guard let cache = snapshot.settings.cache, let response, let request = task.originalRequest, let url = request.url else { return }
        let fields = Self.fields(of: response)
        cache.invalidate(CacheRules.invalidatedURLs(method: request.httpMethod ?? "GET", url: url, status: response.statusCode, fields: fields))
        guard error == nil else { return }
        let requestTime: Date
        switch snapshot.cacheUse {
        case .answered(let updated?):
            return cache.store(updated)
        case .fetching(let time), .validating(_, let time):
            requestTime = time
        case .none, .answered(nil):
            return
        }
        guard response.url == url, CacheRules.isStorable(response, for: request, fields: fields, shared: cache.isShared),
              let varying = CacheRules.varying(fields, request: request) else { return }
        cache.store(CachedResponse(
            url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", fields: CacheRules.storedFields(fields), body: snapshot.data,
            requestTime: requestTime, responseTime: snapshot.responseStart ?? Date(), varying: varying))
    }

    /// The fields of `response` by name.
    private static func fields(of response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return fields
    }
}
