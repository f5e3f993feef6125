import AFLocking
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files of a `ResponseCache` on disk: one file per key (`CacheFile`), in a private
/// directory (`PrivateDirectory`) that this cache alone uses while it lives (an exclusive
/// `flock` on the directory), bounded by `capacity` bytes of files, the least recently used
/// removed first.
///
/// Every file is reached through the directory's descriptor, never through a path that a
/// link could redirect: read without following links and only when it is a regular file of
/// this user that nobody else can read; written to a new file (0600, exclusive) and renamed
/// over the old one, so that a reader sees a whole file or none. Writes and removals run in
/// order on the directory's own queue, off the transport's. A file that is not a cache file of
/// this user, or that the reader refuses, is removed and is a miss; one that cannot be opened
/// for now (no descriptor left) is a miss and stays.
final class CacheDirectory: @unchecked Sendable {
    // @unchecked: `descriptor` and `path` never change; `index` is read and written under its
    // lock; the files are written and removed only on `queue`.
    private struct Index {
        /// Each file's size and when it was last used, by name.
        var files: [String: (size: Int, lastUse: UInt64)] = [:]
        var usage = 0
        var clock: UInt64 = 0
        /// When each file whose removal is queued was removed, and when every file last was:
        /// a write asked for before it must not bring the response back.
        var removed: [String: UInt64] = [:]
        var removedAll: UInt64 = 0

        /// Whether a write asked for at `asked` of the file `name` was overtaken by a removal.
        func isOvertaken(_ name: String, asked: UInt64) -> Bool {
            asked < removedAll || asked < removed[name] ?? 0
        }
    }

    /// The directory's path.
    let path: String
    /// The most bytes the files may take.
    let capacity: Int
    private let descriptor: Int32
    private let index = Locked(Index())
    private let queue = DispatchQueue(label: "AFNetworking.cache-directory")

    /// Opens the directory at `path`, made 0700 (with its missing parents) when missing, for
    /// this cache alone, and takes in the files a previous cache left there (oldest first
    /// out). Throws `SessionError.unsafeCacheDirectory` naming the problem.
    init(path: String, capacity: Int) throws {
        self.path = path
        self.capacity = max(0, capacity)
        let refused = { (reason: String) in SessionError.unsafeCacheDirectory(path: path, reason: reason) }
        Self.makeParents(of: path)
        if let problem = PrivateDirectory.prepare(path) { throw refused(problem) }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw refused("it cannot be opened: \(String(cString: strerror(errno)))") }
        // The rule again on what was opened: the path may have been given another directory
        // since it was checked.
        var opened = stat()
        guard fstat(descriptor, &opened) == 0 else {
            close(descriptor)
            throw refused(String(cString: strerror(errno)))
        }
        if let problem = PrivateDirectory.problem(mode: opened.st_mode, owner: opened.st_uid) {
            close(descriptor)
            throw refused(problem)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw SessionError.cacheDirectoryInUse(path: path)
        }
        self.descriptor = descriptor
        let files = scan()
        index.withLock { index in
            for (clock, file) in files.sorted(by: { $0.modified < $1.modified }).enumerated() {
                index.files[file.name] = (file.size, UInt64(clock + 1))
                index.usage += file.size
            }
            index.clock = UInt64(files.count)
        }
        queue.async { self.evict(keeping: nil) }
    }

    /// Makes the missing parents of `path` (absolute), each 0700 (`~/.cache` may not exist
    /// yet); those that exist are left as they are. The directory itself is checked whoever
    /// made them.
    private static func makeParents(of path: String) {
        var parent = ""
        for component in path.split(separator: "/").dropLast() {
            parent += "/" + component
            _ = mkdir(parent, 0o700)
        }
    }

    deinit {
        // Closing the descriptor releases the lock.
        close(descriptor)
    }

    /// The bytes the files take now.
    var usage: Int {
        index.withLock { $0.usage }
    }

    /// What the file for `key` holds, when there is one that may be read; `nil` otherwise. A
    /// file that is not a cache file of this user (damaged, a link, open to others) is removed;
    /// one that cannot be opened now (no descriptor left) is left for later.
    func read(_ key: String) -> CacheFile.Contents? {
        let name = CacheFile.name(for: key)
        guard let stamp = touch(name: name) else { return nil }
        switch readFile(name) {
        case .contents(let contents):
            return contents.key == key ? contents : nil
        case .missing:
            // Unless a write put a new file there meanwhile.
            index.withLock { index in
                if index.files[name]?.lastUse == stamp, let file = index.files.removeValue(forKey: name) { index.usage -= file.size }
            }
        case .invalid:
            remove(key)
        case .unreadable:
            break
        }
        return nil
    }

    /// Marks the file for `key`, if any, as just used (its place in the eviction order).
    func touch(_ key: String) {
        _ = touch(name: CacheFile.name(for: key))
    }

    /// Marks the file `name` as just used; its new stamp, or `nil` when there is none.
    private func touch(name: String) -> UInt64? {
        index.withLock { index in
            guard index.files[name] != nil else { return nil }
            index.clock += 1
            index.files[name]?.lastUse = index.clock
            return index.clock
        }
    }

    /// Stores `response` under `key` in place of one with the same varying values, in a file
    /// that keeps the key's other responses; removes the least recently used files past the
    /// capacity. `writtenShared`: whether a shared cache stores it.
    func store(_ response: CachedResponse, key: String, writtenShared: Bool) {
        // Queued under the lock: the writes and removals run in the order they were asked for.
        index.withLock { index in
            index.clock += 1
            let asked = index.clock
            queue.async { [self] in write(response, key: key, writtenShared: writtenShared, asked: asked) }
        }
    }

    /// Removes the file of `key`.
    func remove(_ key: String) {
        let name = CacheFile.name(for: key)
        index.withLock { index in
            index.clock += 1
            let removal = index.clock
            index.removed[name] = removal
            if let file = index.files.removeValue(forKey: name) { index.usage -= file.size }
            queue.async { [self] in
                unlinkat(descriptor, name, 0)
                self.index.withLock { index in
                    if index.removed[name] == removal { index.removed[name] = nil }
                }
            }
        }
    }

    /// Removes every response file.
    func removeAll() {
        index.withLock { index in
            index.clock += 1
            index = Index(clock: index.clock, removed: index.removed, removedAll: index.clock)
            queue.async { [self] in
                for file in scan() { unlinkat(descriptor, file.name, 0) }
            }
        }
    }

    /// Returns once the writes and removals asked for so far are done.
    func waitForWrites() {
        queue.sync {}
    }

    // MARK: Files (on `queue`, but for reads)

    /// Writes `response` into `key`'s file, asked for at `asked`: nothing when a removal came
    /// after.
    private func write(_ response: CachedResponse, key: String, writtenShared: Bool, asked: UInt64) {
        let name = CacheFile.name(for: key)
        guard !index.withLock({ $0.isOvertaken(name, asked: asked) }) else { return }
        var responses: [CachedResponse] = []
        if case .contents(let contents) = readFile(name), contents.key == key, contents.writtenShared == writtenShared {
            responses = contents.responses
        }
        responses.removeAll { $0.varying == response.varying }
        responses.append(response)
        let bytes = CacheFile.encode(CacheFile.Contents(key: key, writtenShared: writtenShared, responses: responses))
        guard bytes.count <= capacity, write(bytes, as: name) else {
            unlinkat(descriptor, name, 0)
            forget(name)
            return
        }
        // A removal asked for while the file was written unlinks it next, on this queue.
        index.withLock { index in
            guard !index.isOvertaken(name, asked: asked) else { return }
            index.usage += bytes.count - (index.files[name]?.size ?? 0)
            index.clock += 1
            index.files[name] = (bytes.count, index.clock)
        }
        evict(keeping: name)
    }

    private func forget(_ name: String) {
        index.withLock { index in
            if let file = index.files.removeValue(forKey: name) { index.usage -= file.size }
        }
    }

    /// Removes the least recently used files until they fit, `keeping` the one just written
    /// unless it alone is past the capacity.
    private func evict(keeping kept: String?) {
        while let oldest = index.withLock({ index -> String? in
            guard index.usage > capacity else { return nil }
            return index.files.filter { $0.key != kept }.min { $0.value.lastUse < $1.value.lastUse }?.key ?? kept
        }) {
            forget(oldest)
            unlinkat(descriptor, oldest, 0)
        }
    }

    /// The response files in the directory with their sizes and modification times; partial
    /// files a write left (a process ended in the middle) are removed.
    private func scan() -> [(name: String, size: Int, modified: Int)] {
        // Not inherited by a child process, which would hold the directory's lock on.
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0, let directory = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(directory) }
        rewinddir(directory)
        var files: [(name: String, size: Int, modified: Int)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(Self.partialPrefix) {
                unlinkat(descriptor, name, 0)
                continue
            }
            var info = stat()
            guard CacheFile.isResponseFileName(name), fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                  info.st_mode & S_IFMT == S_IFREG else { continue }
            files.append((name, Int(info.st_size), info.st_mtim.tv_sec))
        }
        return files
    }

    private static let partialPrefix = ".partial-"

    /// What reading a file found.
    private enum FileRead {
        case contents(CacheFile.Contents)
        /// There is no file of the name.
        case missing
        /// Not a cache file of this user: a link or another kind of file, another user's, open
        /// to others or closed to this user, past the capacity, shorter than its size, or
        /// refused by the reader.
        case invalid
        /// It could not be opened or read now (out of descriptors, an I/O error).
        case unreadable
    }

    /// Reads the file `name`.
    private func readFile(_ name: String) -> FileRead {
        let file = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else {
            switch errno {
            case ENOENT: return .missing
            // A link, or a file of ours this user may not read.
            case ELOOP, EACCES: return .invalid
            default: return .unreadable
            }
        }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else { return .unreadable }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o077 == 0, info.st_size <= capacity else { return .invalid }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { return .unreadable }
            // A file that shrank under the reader is not whole.
            guard count > 0 else { return .invalid }
            filled += count
        }
        return CacheFile.decode(bytes).map { .contents($0) } ?? .invalid
    }

    /// Writes `bytes` to a new private file and renames it to `name`; whether it worked.
    private func write(_ bytes: [UInt8], as name: String) -> Bool {
        let partial = Self.partialPrefix + name + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let file = openat(descriptor, partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard file >= 0 else { return false }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            written += count
        }
        close(file)
        guard written == bytes.count, renameat(descriptor, partial, descriptor, name) == 0 else {
            unlinkat(descriptor, partial, 0)
            return false
        }
        return true
    }
}
