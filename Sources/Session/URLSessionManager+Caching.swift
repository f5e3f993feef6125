import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionManager {
    /// Validates the stale stored response of `request` in the background, after a task was
    /// answered with it (RFC 5861's `stale-while-revalidate`): a task of the manager's own that
    /// asks the server (`.reloadRevalidatingCacheData`), whose `304` or new response updates or
    /// replaces what the cache keeps, with `credential` for a Basic challenge. `cache` may
    /// start another once it completed (`TaskDelegate.recordInCache`). The task is the
    /// manager's like any: its overrides, monitors and `completionGroup` see it.
    func revalidate(_ request: URLRequest, credential: URLCredential?, in cache: ResponseCache) {
        guard let url = request.url else { return }
        var validation = request
        validation.cachePolicy = .reloadRevalidatingCacheData
        // Through `cache`, whatever cache the manager has now.
        let task = try? makeDataTask(with: validation, credential: credential, serializer: HTTPResponseSerializer(acceptableStatusCodes: nil),
                                     cache: cache, completion: nil)
        guard let task else { return cache.endRevalidation(of: url) }
        task.resume()
    }
}
