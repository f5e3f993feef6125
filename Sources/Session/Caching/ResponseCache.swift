import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Responses kept in memory for reuse, by the managers given it (`URLSessionManager.responseCache`),
/// under HTTP caching's rules (RFC 9111, `CacheRules`): a fresh response answers a GET without
/// the network, a stale one with a validator is validated (`If-None-Match`,
/// `If-Modified-Since`) and a `304 Not Modified` answers with it, updated; an unsafe request
/// that succeeds invalidates its target's responses. Each `URLRequest.CachePolicy` means what
/// it means on Apple platforms (`CacheRules.decision`). Ports AFNetworking's use of the
/// session's `NSURLCache`.
///
/// By default the cache is shared (`isShared`): it follows the shared-cache rules, as a
/// service calling an API for many users needs: no `private` response, no response to a
/// request with `Authorization` unless the response allows it (`public`, `s-maxage`,
/// `must-revalidate`), and no response that sets cookies. Never stored: responses to other
/// methods than GET, to requests with their own validators or ranges, `no-store`, `Vary: *`,
/// partial and streamed bodies, downloads. Least recently used responses go first when the
/// capacity is reached; a response larger than the capacity is not stored.
public final class ResponseCache: Sendable {
    private struct State {
        /// The responses stored under each key (`CacheRules.key`), one per set of varying values.
        var entries: [String: [CachedResponse]] = [:]
        /// When each key was last used, for eviction.
        var lastUse: [String: UInt64] = [:]
        var clock: UInt64 = 0
        var usage = 0
        /// The keys whose stale responses are being validated in the background.
        var revalidating: Set<String> = []
    }

    /// The most bytes of bodies and fields the cache keeps. Default 10 MiB.
    public let memoryCapacity: Int
    /// Whether the cache follows the shared-cache rules (it serves many users). Default `true`;
    /// `false` for a manager that calls on behalf of one user only (then `private` responses
    /// and responses to requests with `Authorization` are stored too).
    public let isShared: Bool
    private let state = Locked(State())

    /// An empty cache of `memoryCapacity` bytes, shared unless `isShared` is `false`.
    public init(memoryCapacity: Int = 10 * 1024 * 1024, isShared: Bool = true) {
        self.memoryCapacity = max(0, memoryCapacity)
        self.isShared = isShared
    }

    /// The bytes of bodies and fields the cache keeps now.
    public var currentMemoryUsage: Int {
        state.withLock { $0.usage }
    }

    /// Forgets every response.
    public func removeAllResponses() {
        // Validations under way still end (`endRevalidation`).
        state.withLock { $0 = State(revalidating: $0.revalidating) }
    }

    /// Forgets the responses stored for `url`.
    public func removeResponses(for url: URL) {
        state.withLock { Self.remove(CacheRules.key(for: url), from: &$0) }
    }

    // MARK: For the manager's tasks

    /// The stored response that answers `request`, if any.
    func entry(for request: URLRequest) -> CachedResponse? {
        guard let url = request.url else { return nil }
        let key = CacheRules.key(for: url)
        return state.withLock { state in
            guard let entry = state.entries[key]?.last(where: { CacheRules.matches($0, request) }) else { return nil }
            state.clock += 1
            state.lastUse[key] = state.clock
            return entry
        }
    }

    /// Keeps `entry` in place of a response stored with the same varying values, making room
    /// by forgetting the least recently used.
    func store(_ entry: CachedResponse) {
        let cost = entry.cost
        guard cost <= memoryCapacity else { return }
        let key = CacheRules.key(for: entry.url)
        state.withLock { state in
            var variants = state.entries[key] ?? []
            if let index = variants.firstIndex(where: { $0.varying == entry.varying }) {
                state.usage -= variants[index].cost
                variants.remove(at: index)
            }
            variants.append(entry)
            state.entries[key] = variants
            state.usage += cost
            state.clock += 1
            state.lastUse[key] = state.clock
            // Other keys first, least recently used first; then this key's older variants.
            while state.usage > memoryCapacity {
                if let oldest = state.lastUse.filter({ $0.key != key }).min(by: { $0.value < $1.value })?.key {
                    Self.remove(oldest, from: &state)
                } else if var variants = state.entries[key], variants.count > 1 {
                    state.usage -= variants.removeFirst().cost
                    state.entries[key] = variants
                } else {
                    break
                }
            }
        }
    }

    /// Whether a background validation of `request`'s stored response should start: `false`
    /// while one runs (`endRevalidation`).
    func beginsRevalidation(of request: URLRequest) -> Bool {
        guard let url = request.url else { return false }
        return state.withLock { $0.revalidating.insert(CacheRules.key(for: url)).inserted }
    }

    /// The background validation of `url`'s stored response ended.
    func endRevalidation(of url: URL) {
        state.withLock { _ = $0.revalidating.remove(CacheRules.key(for: url)) }
    }

    /// Forgets the responses of `urls`.
    func invalidate(_ urls: [URL]) {
        guard !urls.isEmpty else { return }
        state.withLock { state in
            for url in urls { Self.remove(CacheRules.key(for: url), from: &state) }
        }
    }

    private static func remove(_ key: String, from state: inout State) {
        guard let variants = state.entries.removeValue(forKey: key) else { return }
        state.usage -= variants.reduce(0) { $0 + $1.cost }
        state.lastUse[key] = nil
    }
}
