import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponseCache {
    /// A `URLCache` a `ResponseCache` stands for, held weakly: compared by identity only,
    /// under `standIns`' lock.
    private struct Adopted: @unchecked Sendable {
        weak var urlCache: URLCache?
        let cache: ResponseCache
    }

    private static let standIns = Locked<[Adopted]>([])

    /// The cache that stands for `urlCache`, a session configuration's, in the managers made
    /// with it: one per `URLCache` object while it lives (managers sharing `URLCache.shared`
    /// share one), shared (`isShared`), in memory of the `URLCache`'s `memoryCapacity`. Its
    /// disk part is not used: URLCache on Linux keeps its own files in a directory its API
    /// does not name, so a cache on disk is made with `init(diskCapacity:directory:)`.
    static func standIn(for urlCache: URLCache) -> ResponseCache {
        standIns.withLock { standIns in
            standIns.removeAll { $0.urlCache == nil }
            if let adopted = standIns.first(where: { $0.urlCache === urlCache }) { return adopted.cache }
            let cache = ResponseCache(memoryCapacity: urlCache.memoryCapacity)
            standIns.append(Adopted(urlCache: urlCache, cache: cache))
            return cache
        }
    }
}
