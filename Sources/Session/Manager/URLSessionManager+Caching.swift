import AFSecurity
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionManager {
    /// Where GET responses are kept for reuse, under HTTP caching's rules and each request's
    /// `cachePolicy` (`ResponseCache`), for tasks created from now on; several managers may
    /// share one. Default: for a configuration with a `urlCache` (`.default` and `.ephemeral`
    /// have one), a shared cache in memory of its `memoryCapacity`, one per `URLCache` object
    /// (managers made with `URLCache.shared` share it); `nil` for the manager's own default
    /// configuration, which has no `urlCache`, and every request then goes to the network.
    /// The cache stands in front of both transports: on URLSession's own protocol
    /// (`transport: .urlSession`, or the fallback where libcurl cannot be loaded) it is asked
    /// when the task is made, and a task it answers without the network is the manager's own
    /// (URLSession's `URLCache` is not used). Ports the session configuration's `URLCache`
    /// that AFNetworking's requests go through.
    public var responseCache: ResponseCache? {
        get { configuration.withLock { $0.responseCache } }
        set { configuration.withLock { $0.responseCache = newValue } }
    }

    /// Validates the stale stored response of `request` in the background, after a task was
    /// answered with it (RFC 5861's `stale-while-revalidate`): a task of the manager's own that
    /// asks the server (`.reloadRevalidatingCacheData`), whose `304` or new response updates or
    /// replaces what the cache keeps, with `credential` for a Basic challenge and the answered
    /// task's own `clientIdentity`. `cache` may start another for `key` once it completed
    /// (`TaskDelegate.recordInCache`). The task is the manager's like any: its overrides,
    /// monitors and `completionGroup` see it.
    func revalidate(_ request: URLRequest, key: CacheKey, credential: URLCredential?, clientIdentity: ClientIdentity?, in cache: ResponseCache) {
        var validation = request
        validation.cachePolicy = .reloadRevalidatingCacheData
        // Through `cache`, whatever cache the manager has now.
        let task = try? makeDataTask(with: validation, credential: credential, serializer: HTTPResponseSerializer(acceptableStatusCodes: nil),
                                     cache: cache, completion: nil)
        guard let task else { return cache.endRevalidation(of: key) }
        if let clientIdentity { setClientIdentity(clientIdentity, for: task) }
        task.resume()
    }
}
