@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponseCache {
    /// The stored response that answers `request` sent over TCP without a client certificate.
    func entry(for request: URLRequest) -> CachedResponse? {
        entry(for: request, key: CacheKey(request, socketPath: nil, identity: nil, route: nil)!)
    }

    /// Forgets the responses of `urls`, requested without a `Host` field of their own.
    func invalidate(_ urls: [URL]) {
        invalidate(urls.map(CacheKey.target(of:)))
    }
}
