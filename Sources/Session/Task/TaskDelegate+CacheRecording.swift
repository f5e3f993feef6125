import AFSerialization
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the task tells its manager's `ResponseCache` of what went out and what came back: the
/// request as it was sent (after interceptors, credentials and the jar), and, once the task
/// completed, what may be stored under it and what an unsafe request invalidated.
extension TaskDelegate {
    /// The transfer sends `request` for the task (an attempt, after its interceptors and the
    /// jar's cookies; or a Basic answer): what the cache stores the response under, and
    /// whether it is one user's, are read from it.
    func willSendForCache(_ request: URLRequest) {
        guard cache != nil else { return }
        live { live, _ in
            live.sentRequest = request
            if CacheRules.carriesCredentials(request) { live.sentCredentials = true }
        }
    }

    /// URLSession's own protocol answered a challenge with `credential`, in a request the
    /// manager does not see: the response is one user's, and a `Vary: Authorization` sees the
    /// credential (as the Basic answer that URLSession sends for it).
    func sentCredential(_ credential: URLCredential) {
        guard cache != nil else { return }
        live { live, _ in
            live.sentCredentials = true
            guard var sent = live.sentRequest ?? live.cacheRequest ?? task.originalRequest else { return }
            sent.setValue(BasicAuthorization.headerValue(user: credential.user ?? "", password: credential.password ?? ""), forHTTPHeaderField: "Authorization")
            live.sentRequest = sent
        }
    }

    /// Tells the cache what the completed task received: an unsafe request's success
    /// invalidates what it changed (at the target that answered, after redirects); a response
    /// from the network that may be stored is, with its body, under the request as it was
    /// sent (its target, socket, certificate and `Vary`'s fields, after interceptors and
    /// credentials), unless a redirect led to it; a stored response a `304` updated is kept
    /// while it may still be stored.
    func recordInCache(_ snapshot: Live, response: HTTPURLResponse?, error: (any Error)?) {
        guard let cache, let request = snapshot.cacheRequest ?? task.originalRequest, let url = request.url else { return }
        let sent = snapshot.sentRequest ?? request
        guard let key = cacheKey(of: sent, settings: snapshot.settings) else { return }
        // A validation the cache started in the background (`stale-while-revalidate`) ended.
        if request.cachePolicy == .reloadRevalidatingCacheData, let asked = cacheKey(of: request, settings: snapshot.settings) {
            cache.endRevalidation(of: asked)
        }
        guard let response else { return }
        let fields = Self.fields(of: response)
        cache.invalidate(CacheRules.invalidatedTargets(
            method: sent.httpMethod ?? "GET", key: key, answered: response.url ?? url, status: response.statusCode, fields: fields))
        guard error == nil else { return }
        let storable = { (status: Int, fields: [String: String]) in
            self.isStorable(status: status, fields: fields, request: request, sent: sent, key: key, answeredChallenge: snapshot.sentCredentials, in: cache)
        }
        switch snapshot.cacheUse {
        case .answered(_, var updated?):
            updated.storedWithCredentials = updated.storedWithCredentials
                || CacheRules.isCredentialed(sent, key: key, answeredChallenge: snapshot.sentCredentials)
            guard storable(updated.statusCode, updated.fields), let approved = approved(updated, request: request, sent: sent) else { return cache.invalidate([updated.key.target]) }
            cache.store(approved)
        case .fetching(let requestTime, _), .validating(_, let requestTime):
            guard !snapshot.cacheBodyRefused, response.url == url, storable(response.statusCode, fields),
                  let varying = CacheRules.varying(fields, request: sent),
                  let approved = approved(CachedResponse(
                      url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", fields: CacheRules.storedFields(fields, bodyLength: snapshot.data.count), body: snapshot.data,
                      requestTime: requestTime, responseTime: cache.now(), varying: varying,
                      storedWithCredentials: CacheRules.isCredentialed(sent, key: key, answeredChallenge: snapshot.sentCredentials),
                      host: key.host, socketPath: key.socketPath, identity: key.identity, route: key.route), request: request, sent: sent)
            else { return }
            cache.store(approved)
        case .none, .redirected, .answered(_, nil):
            return
        }
    }

    /// Whether a response of `status` and `fields` to the task's `request`, which went out as
    /// `sent` (after interceptors, credentials and the jar) with `key`, may be stored in
    /// `cache`: the caller's request takes part in caching and is still a GET without a body as
    /// it went out, and the response may be stored for what went with it (every credential
    /// that went out makes it one user's: an `Authorization` of the request, an interceptor or
    /// a Basic answer, the jar's cookies, a client certificate of the task or the transport).
    func isStorable(
        status: Int, fields: [String: String], request: URLRequest, sent: URLRequest, key: CacheKey, answeredChallenge: Bool, in cache: ResponseCache
    ) -> Bool {
        CacheRules.isBodilessGet(sent) && CacheRules.isStorable(
            status: status, for: request, fields: fields, shared: cache.isShared,
            credentialed: CacheRules.isCredentialed(sent, key: key, answeredChallenge: answeredChallenge))
    }

    /// Whether the streamed body of `response`, the final response of a task that owns
    /// `live`, is kept for `cache`: only when the task may store what it receives and the
    /// response may be stored, so that no chunk is copied for nothing.
    func keepsStreamedBody(of response: HTTPURLResponse, in live: Live, cache: ResponseCache) -> Bool {
        guard live.cacheUse.storesResponse, let request = live.cacheRequest ?? task.originalRequest else { return false }
        let sent = live.sentRequest ?? request
        guard let key = cacheKey(of: sent, settings: live.settings) else { return false }
        return isStorable(status: response.statusCode, fields: Self.fields(of: response), request: request, sent: sent, key: key,
                          answeredChallenge: live.sentCredentials, in: cache)
    }

    /// `entry` as the manager's `dataTaskWillCacheResponse` override changes it (its response's
    /// status and fields, its data), or `nil` when the override refuses it; `entry` itself
    /// without an override; held to the rules for `request` (the task's own, before the cache's
    /// validators), its varying values read from `sent`, the request as it went out. The override runs where the task completes: on the delegate queue (`TaskEventDelivery`).
    private func approved(_ entry: CachedResponse, request: URLRequest, sent: URLRequest) -> CachedResponse? {
        guard let manager, let override = manager.override(\.dataTaskWillCacheResponse), let dataTask = task as? URLSessionDataTask,
              let response = entry.response else { return entry }
        let proposed = CachedURLResponse(response: response, data: entry.body, userInfo: nil, storagePolicy: .allowedInMemoryOnly)
        guard let chosen = override(session, dataTask, proposed), chosen.storagePolicy != .notAllowed,
              let changed = chosen.response as? HTTPURLResponse else { return nil }
        // What the override made is held to the same rules as what the server sent.
        let fields = CacheRules.storedFields(Self.fields(of: changed), bodyLength: chosen.data.count)
        guard CacheRules.isStorable(status: changed.statusCode, for: request, fields: fields, shared: cache?.isShared ?? true,
                                    credentialed: entry.storedWithCredentials),
              let varying = CacheRules.varying(fields, request: sent) else { return nil }
        var approved = entry
        approved.statusCode = changed.statusCode
        approved.fields = fields
        approved.body = chosen.data
        approved.varying = varying
        return approved
    }
}
