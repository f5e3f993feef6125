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
/// `must-revalidate`), and no response that sets cookies. Responses are kept by the request as
/// it goes out (`CacheKey`: its URL and own `Host`, its socket, client certificate and route;
/// `Vary` against the request as sent), and managers made with one configuration's `URLCache`
/// share one cache. Never stored: responses to other methods than GET, to a GET with a body,
/// to requests with their own validators or ranges, `no-store`, `Vary: *`, partial bodies,
/// downloads, and streamed bodies larger than the cache's memory capacity. Least recently used
/// responses go first when a capacity is reached; a response larger than a capacity is not
/// kept there.
///
/// With a directory, every stored response is also written there (`CacheDirectory`), and a
/// later cache on the same directory, in this process or another, answers with it. The
/// directory and its files are private (0700, 0600, never through a link), one cache uses a
/// directory at a time, and a file that is damaged, not this user's, or written by a cache
/// that was not shared for a shared one, is a miss. Writes run in the background
/// (`waitForDiskWrites`).
public final class ResponseCache: Sendable {
    private struct State {
        /// The responses stored under each target (`CacheKey.target`), one per key and set of
        /// varying values.
        var entries: [String: [CachedResponse]] = [:]
        /// When each key was last used, for eviction.
        var lastUse: [String: UInt64] = [:]
        var clock: UInt64 = 0
        var usage = 0
        /// The keys whose stale responses are being validated in the background.
        var revalidating: Set<CacheKey> = []
        /// How many invalidations there were: what was read from disk meanwhile is stale.
        var invalidations: UInt64 = 0
    }

    /// The most bytes the cache keeps in memory, each response counted with all it holds (its
    /// body, fields, URL, key and varying values, and a fixed overhead). Default 10 MiB.
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
    /// `directory`, made (0700, with its missing parents) when missing, that starts with the
    /// responses a previous cache left there. Throws `SessionError.unsafeCacheDirectory` when
    /// the directory cannot be made or opened, or is not private to this user (a link, not a
    /// directory, another user's, or open to others), and `SessionError.cacheDirectoryInUse`
    /// while another cache uses it: a directory is free again once the cache that used it is
    /// gone, with the tasks made while a manager held it.
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

    /// The bytes the cache keeps in memory now, counted as `memoryCapacity` counts them.
    public var currentMemoryUsage: Int {
        state.withLock { $0.usage }
    }

    /// The bytes the cache's files take on disk now.
    public var currentDiskUsage: Int {
        disk?.usage ?? 0
    }

    /// Forgets every response, in memory and on disk.
    public func removeAllResponses() {
        state.withLock { state in
            // Validations under way still end (`endRevalidation`).
            state = State(revalidating: state.revalidating, invalidations: state.invalidations + 1)
            disk?.removeAll()
        }
    }

    /// Forgets the responses stored for `url` (requested without a `Host` field of its own).
    public func removeResponses(for url: URL) {
        invalidate([CacheKey.target(of: url)])
    }

    /// Returns once the files of the responses stored so far are written (or removed): a
    /// process about to exit calls it so that the next finds them.
    public func waitForDiskWrites() {
        disk?.waitForWrites()
    }

    // MARK: For the manager's tasks

    /// The stored response that answers `request`, going out as `requestKey` says, if any: from
    /// memory, or else from the target's file on disk, whose responses memory then keeps
    /// (unless an invalidation came while the file was read).
    func entry(for request: URLRequest, key requestKey: CacheKey) -> CachedResponse? {
        let key = requestKey.target
        let (inMemory, seen): (CachedResponse?, UInt64) = state.withLock { state in
            guard let variants = state.entries[key] else { return (nil, state.invalidations) }
            state.clock += 1
            state.lastUse[key] = state.clock
            return (variants.last { CacheRules.matches($0, request, key: requestKey) }, state.invalidations)
        }
        guard let disk else { return inMemory }
        if let inMemory {
            // The file's recency follows its use, or the busiest files would go first.
            disk.touch(key)
            return inMemory
        }
        guard let contents = disk.read(key), contents.writtenShared || !isShared else { return nil }
        let current: Bool = state.withLock { state in
            guard state.invalidations == seen else { return false }
            // Memory's own responses are as new as the file's, or newer.
            let known = state.entries[key] ?? []
            for response in contents.responses where !known.contains(where: { Self.sameVariant($0, response) }) {
                Self.keep(response, in: &state, capacity: memoryCapacity)
            }
            return true
        }
        return current ? contents.responses.last { CacheRules.matches($0, request, key: requestKey) } : nil
    }

    /// Keeps `entry` in place of a response stored with the same key and varying values, in
    /// memory and on disk.
    func store(_ entry: CachedResponse) {
        state.withLock { state in
            Self.keep(entry, in: &state, capacity: memoryCapacity)
            // Asked under the lock, so that it is in order with the invalidations.
            disk?.store(entry, key: entry.key.target, writtenShared: isShared)
        }
    }

    /// Keeps `entry` in `state`'s memory in place of a response with the same varying values,
    /// making room within `capacity` by forgetting the least recently used.
    private static func keep(_ entry: CachedResponse, in state: inout State, capacity: Int) {
        let cost = entry.cost
        guard cost <= capacity else { return }
        let key = entry.key.target
        var variants = state.entries[key] ?? []
        if let index = variants.firstIndex(where: { sameVariant($0, entry) }) {
            state.usage -= variants[index].cost
            variants.remove(at: index)
        }
        variants.append(entry)
        state.entries[key] = variants
        state.usage += cost
        state.clock += 1
        state.lastUse[key] = state.clock
        // Other keys first, least recently used first; then this key's older variants.
        while state.usage > capacity {
            if let oldest = state.lastUse.filter({ $0.key != key }).min(by: { $0.value < $1.value })?.key {
                remove(oldest, from: &state)
            } else if var variants = state.entries[key], variants.count > 1 {
                state.usage -= variants.removeFirst().cost
                state.entries[key] = variants
            } else {
                break
            }
        }
    }

    /// Whether a background validation of the stored response of a request going out as `key`
    /// should start: `false` while one runs (`endRevalidation`).
    func beginsRevalidation(of key: CacheKey) -> Bool {
        state.withLock { $0.revalidating.insert(key).inserted }
    }

    /// The background validation of `key`'s stored response ended.
    func endRevalidation(of key: CacheKey) {
        state.withLock { _ = $0.revalidating.remove(key) }
    }

    /// Forgets the responses stored under `targets` (`CacheKey.target`), through any socket
    /// and with any certificate, in memory and on disk.
    func invalidate(_ targets: [String]) {
        guard !targets.isEmpty else { return }
        state.withLock { state in
            state.invalidations += 1
            for key in targets {
                Self.remove(key, from: &state)
                disk?.remove(key)
            }
        }
    }

    /// Whether `one` and `other` answer the same requests: the same key and varying values, so
    /// that one replaces the other.
    private static func sameVariant(_ one: CachedResponse, _ other: CachedResponse) -> Bool {
        one.sharesKey(with: other) && one.varying == other.varying
    }

    private static func remove(_ key: String, from state: inout State) {
        guard let variants = state.entries.removeValue(forKey: key) else { return }
        state.usage -= variants.reduce(0) { $0 + $1.cost }
        state.lastUse[key] = nil
    }
}
