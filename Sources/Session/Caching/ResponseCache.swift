import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Responses kept for reuse, in memory and optionally on disk, by the managers given it
/// (`URLSessionManager.responseCache`), under HTTP caching's rules (RFC 9111, `CacheRules`): a
/// fresh response answers a GET without the network, a stale one with a validator is
/// validated (`If-None-Match`, `If-Modified-Since`) and a `304 Not Modified` answers with it,
/// updated; an unsafe request that succeeds invalidates its target's responses. Each
/// `URLRequest.CachePolicy` means what it means on Apple platforms (`CacheRules.decision`).
/// Ports AFNetworking's use of the session's `NSURLCache`.
///
/// By default the cache is shared (`isShared`): it follows the shared-cache rules, as a
/// service calling an API for many users needs: no `private` response, no response to a
/// request with `Authorization` unless the response allows it (`public`, `s-maxage`,
/// `must-revalidate`), and no response that sets cookies. Never stored: responses to other
/// methods than GET, to requests with their own validators or ranges, `no-store`, `Vary: *`,
/// partial and streamed bodies, downloads. Least recently used responses go first when a
/// capacity is reached; a response larger than a capacity is not kept there.
///
/// With a directory, every stored response is also written there (`CacheDirectory`), and a
/// later cache on the same directory, in this process or another, answers with it. The
/// directory and its files are private (0700, 0600, never through a link), one cache uses a
/// directory at a time, and a file that is damaged, not this user's, or written by a cache
/// that was not shared for a shared one, is a miss. Writes run in the background
/// (`waitForDiskWrites`).
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

    /// The most bytes of bodies and fields the cache keeps in memory. Default 10 MiB.
    public let memoryCapacity: Int
    /// The most bytes the cache's files take on disk; 0 without a directory.
    public let diskCapacity: Int
    /// The directory the cache keeps its files in; `nil` for a cache in memory only.
    public let directory: URL?
    /// Whether the cache follows the shared-cache rules (it serves many users). Default `true`;
    /// `false` for a manager that calls on behalf of one user only (then `private` responses
    /// and responses to requests with `Authorization` are stored too).
    public let isShared: Bool
    /// The clock freshness and ages are read from.
    let now: @Sendable () -> Date
    private let disk: CacheDirectory?
    private let state = Locked(State())

    /// An empty cache in memory of `memoryCapacity` bytes, shared unless `isShared` is `false`.
    public convenience init(memoryCapacity: Int = 10 * 1024 * 1024, isShared: Bool = true) {
        self.init(memoryCapacity: memoryCapacity, disk: nil, isShared: isShared, now: { Date() })
    }

    /// A cache of `memoryCapacity` bytes in memory and `diskCapacity` bytes of files in
    /// `directory`, made (0700) when missing, that starts with the responses a previous cache
    /// left there. Throws `SessionError.unsafeCacheDirectory` when the directory cannot be
    /// made or opened, is not private to this user (a link, not a directory, another user's,
    /// or open to others), or another cache uses it.
    public convenience init(memoryCapacity: Int = 10 * 1024 * 1024, diskCapacity: Int, directory: URL, isShared: Bool = true) throws {
        let disk = try CacheDirectory(path: directory.path, capacity: diskCapacity)
        self.init(memoryCapacity: memoryCapacity, disk: disk, isShared: isShared, now: { Date() })
    }

    /// A cache whose rules read the time from `now` (tests age its responses without waiting).
    init(memoryCapacity: Int, disk: CacheDirectory?, isShared: Bool, now: @escaping @Sendable () -> Date) {
        self.memoryCapacity = max(0, memoryCapacity)
        self.disk = disk
        diskCapacity = disk?.capacity ?? 0
        directory = disk.map { URL(fileURLWithPath: $0.path, isDirectory: true) }
        self.isShared = isShared
        self.now = now
    }

    /// The bytes of bodies and fields the cache keeps in memory now.
    public var currentMemoryUsage: Int {
        state.withLock { $0.usage }
    }

    /// The bytes the cache's files take on disk now.
    public var currentDiskUsage: Int {
        disk?.usage ?? 0
    }

    /// Forgets every response, in memory and on disk.
    public func removeAllResponses() {
        // Validations under way still end (`endRevalidation`).
        state.withLock { $0 = State(revalidating: $0.revalidating) }
        disk?.removeAll()
    }

    /// Forgets the responses stored for `url`.
    public func removeResponses(for url: URL) {
        invalidate([url])
    }

    /// Returns once the files of the responses stored so far are written (or removed): a
    /// process about to exit calls it so that the next finds them.
    public func waitForDiskWrites() {
        disk?.waitForWrites()
    }

    // MARK: For the manager's tasks

    /// The stored response that answers `request`, if any: from memory, or else from the key's
    /// file on disk, which memory then keeps.
    func entry(for request: URLRequest) -> CachedResponse? {
        guard let url = request.url else { return nil }
        let key = CacheRules.key(for: url)
        let inMemory: [CachedResponse]? = state.withLock { state in
            guard let variants = state.entries[key] else { return nil }
            state.clock += 1
            state.lastUse[key] = state.clock
            return variants
        }
        if let inMemory { return inMemory.last { CacheRules.matches($0, request) } }
        guard let contents = disk?.read(key), contents.writtenShared || !isShared else { return nil }
        for response in contents.responses { keepInMemory(response) }
        return contents.responses.last { CacheRules.matches($0, request) }
    }

    /// Keeps `entry` in place of a response stored with the same varying values, in memory and
    /// on disk.
    func store(_ entry: CachedResponse) {
        keepInMemory(entry)
        disk?.store(entry, key: CacheRules.key(for: entry.url), writtenShared: isShared)
    }

    /// Keeps `entry` in memory in place of a response with the same varying values, making room
    /// by forgetting the least recently used.
    private func keepInMemory(_ entry: CachedResponse) {
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

    /// Forgets the responses of `urls`, in memory and on disk.
    func invalidate(_ urls: [URL]) {
        guard !urls.isEmpty else { return }
        let keys = urls.map { CacheRules.key(for: $0) }
        state.withLock { state in
            for key in keys { Self.remove(key, from: &state) }
        }
        for key in keys { disk?.remove(key) }
    }

    private static func remove(_ key: String, from state: inout State) {
        guard let variants = state.entries.removeValue(forKey: key) else { return }
        state.usage -= variants.reduce(0) { $0 + $1.cost }
        state.lastUse[key] = nil
    }
}
