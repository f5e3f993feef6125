import AFLocking
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The dispatch sources watching libcurl's sockets. A socket is closed only after its
/// sources are cancelled (libdispatch must not watch a closed, possibly reused descriptor),
/// so libcurl closes sockets through `closeSocket`.
///
/// libcurl stops watching a connection between two requests on it (it sits in the pool), then
/// watches it again: the read source stays meanwhile, so that a kept-alive connection does not
/// make and cancel a source per request (each wakes libdispatch's manager thread). Should an
/// unwatched connection become readable, its source is cancelled (it would fire without end);
/// and when no transfer runs that the bytes could belong to, it sits unused in the pool and is
/// shut down: the server closed it, or sent bytes nobody asked for (a body after a 204 or a
/// HEAD response, an unsolicited response), which libcurl would otherwise read as the answer to
/// the next request on it, shifting every later response by one. Shut down, it fails libcurl's
/// check before reuse and a new connection is made.
///
/// libcurl also closes some descriptors itself, without `closeSocket` (7.74's threaded
/// resolver closes the socket pair it had watched), and the next socket, in this transport or
/// another, may take the number. A source left on a closed number never fires again, and
/// libdispatch joins any later source on that number (process-wide) to its dead registration:
/// on bullseye's libcurl 7.74 a third of HTTPS requests stalled until the idle timeout. So
/// the sources watch a duplicate of each socket, which only this object closes, and a watch
/// whose number no longer names its file (`FileIdentity`) is dropped, when it fires or when
/// libcurl watches the number again.
///
/// A write source watches a duplicate of its own, closed once it is cancelled: a read source
/// made on the descriptor whose write source was just cancelled (libcurl turning from writing a
/// request to reading its response) joined the dying registration and never fired; on libcurl
/// 8.14.1, which turns at once, 5 and 7 of 20 runs of `RetryContinuationTests` stalled so. The
/// read source, kept while the connection lives, stays on the watch's descriptor: a pooled
/// connection holds two descriptors, not three.
final class CurlSockets: @unchecked Sendable {
    // @unchecked: `watches` is a `Locked`; `queue` is immutable.

    private struct Watch {
        var read: (any DispatchSourceProtocol)?
        var write: (any DispatchSourceProtocol)?
        /// libcurl stopped watching the socket; `read` is kept for its next request.
        var isIdle = false
        /// Whether the socket's bytes may be a transfer's (its hop still runs on it, paused or
        /// between two of libcurl's steps, or another hop may have taken it from the pool),
        /// asked when it becomes readable while idle; otherwise it sits unused in libcurl's pool.
        /// Called on the transport's queue.
        var mayBeInUse: (() -> Bool)?
        let cancellations = DispatchGroup()
        /// The open file the socket's number named when the watch was made.
        let file: FileIdentity?
        /// What the sources watch: a duplicate of the socket (the socket itself should `dup`
        /// fail), closed by this object once they are cancelled.
        let descriptor: Int32

        /// Cancels the sources; `descriptor`, when it is a duplicate, is closed after them.
        func retire(socket: Int32, queue: DispatchQueue) {
            read?.cancel()
            write?.cancel()
            let descriptor = descriptor
            if descriptor != socket { cancellations.notify(queue: queue) { _ = Glibc.close(descriptor) } }
        }
    }

    /// The device and inode of an open descriptor.
    struct FileIdentity: Equatable {
        var device: UInt
        var inode: UInt

        init?(_ descriptor: Int32) {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { return nil }
            device = UInt(status.st_dev)
            inode = UInt(status.st_ino)
        }
    }

    private let queue: DispatchQueue
    private let watches = Locked<[Int32: Watch]>([:])

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Sockets libcurl still watched, or closed itself, when its multi handle was cleaned up:
    /// their sources are cancelled and duplicates closed (a source never cancelled keeps its
    /// duplicate open for the life of the process).
    deinit {
        for (socket, watch) in watches.withLock({ $0 }) { watch.retire(socket: socket, queue: queue) }
    }

    /// Watches `socket` for reading and/or writing; `handler` gets libcurl's event bits.
    func watch(_ socket: Int32, read: Bool, write: Bool, handler: @escaping @Sendable (Int32) -> Void) {
        let file = FileIdentity(socket)
        let stale: Watch? = watches.withLock { watches in
            var stale: Watch?
            var watch: Watch
            if let existing = watches[socket], existing.file == file {
                watch = existing
            } else {
                stale = watches[socket]
                let duplicate = dup(socket)
                watch = Watch(file: file, descriptor: duplicate >= 0 ? duplicate : socket)
            }
            watch.isIdle = false
            watch.mayBeInUse = nil
            let descriptor = watch.descriptor
            watch.read = source(watch.read, wanted: read, of: descriptor, duplicated: false, cancellations: watch.cancellations) { watched in
                let source = DispatchSource.makeReadSource(fileDescriptor: watched, queue: queue)
                source.setEventHandler { [weak self] in
                    guard let self, !dropIfClosed(socket, descriptor: descriptor), !retireIfIdle(socket) else { return }
                    handler(CurlSocket.selectIn)
                }
                return source
            }
            watch.write = source(watch.write, wanted: write, of: descriptor, duplicated: true, cancellations: watch.cancellations) { watched in
                let source = DispatchSource.makeWriteSource(fileDescriptor: watched, queue: queue)
                source.setEventHandler { [weak self] in
                    guard let self, !dropIfClosed(socket, descriptor: descriptor) else { return }
                    handler(CurlSocket.selectOut)
                }
                return source
            }
            watches[socket] = watch
            return stale
        }
        stale?.retire(socket: socket, queue: queue)
    }

    /// `existing`, or when one is wanted a new source from `make` on `descriptor`, or when
    /// `duplicated` on a duplicate of it of its own (closed once the source is cancelled); `nil`
    /// after cancelling.
    private func source(
        _ existing: (any DispatchSourceProtocol)?, wanted: Bool, of descriptor: Int32, duplicated: Bool, cancellations: DispatchGroup,
        make: (Int32) -> any DispatchSourceProtocol
    ) -> (any DispatchSourceProtocol)? {
        guard wanted else {
            existing?.cancel()
            return nil
        }
        if let existing { return existing }
        let duplicate = duplicated ? dup(descriptor) : -1
        let source = make(duplicate >= 0 ? duplicate : descriptor)
        cancellations.enter()
        source.setCancelHandler {
            if duplicate >= 0 { _ = Glibc.close(duplicate) }
            cancellations.leave()
        }
        source.resume()
        return source
    }

    /// Stops watching `socket` for libcurl, which keeps it open (in its pool, or under a
    /// transfer: `mayBeInUse`) until it closes it.
    func unwatch(_ socket: Int32, mayBeInUse: @escaping () -> Bool) {
        watches.withLock { watches in
            watches[socket]?.write?.cancel()
            watches[socket]?.write = nil
            watches[socket]?.isIdle = true
            watches[socket]?.mayBeInUse = mayBeInUse
        }
    }

    /// Drops the watch on `descriptor` when libcurl closed `socket` itself (its number names
    /// another file now, or none): whether it did. One `fstat` an event.
    private func dropIfClosed(_ socket: Int32, descriptor: Int32) -> Bool {
        let stale: Watch? = watches.withLock { watches in
            guard let watch = watches[socket], watch.descriptor == descriptor else { return nil }
            guard FileIdentity(socket) != watch.file else { return nil }
            watches[socket] = nil
            return watch
        }
        guard let stale else { return false }
        stale.retire(socket: socket, queue: queue)
        return true
    }

    /// Cancels the read source of `socket` if libcurl does not watch it, and shuts the
    /// connection down if it sits unused in the pool (a transfer's bytes are its own); whether
    /// libcurl did not watch it.
    private func retireIfIdle(_ socket: Int32) -> Bool {
        watches.withLock { watches in
            guard let watch = watches[socket], watch.isIdle else { return false }
            watches[socket]?.read?.cancel()
            watches[socket]?.read = nil
            if watch.mayBeInUse?() != true { _ = shutdown(watch.descriptor, Int32(SHUT_RDWR)) }
            return true
        }
    }

    /// Closes `socket` once its sources are cancelled.
    func close(_ socket: Int32) {
        let watch: Watch? = watches.withLock { $0.removeValue(forKey: socket) }
        guard let watch, watch.file == FileIdentity(socket) else {
            // Never watched, or the watch was of a file libcurl closed itself.
            watch?.retire(socket: socket, queue: queue)
            _ = Glibc.close(socket)
            return
        }
        watch.retire(socket: socket, queue: queue)
        watch.cancellations.notify(queue: queue) { _ = Glibc.close(socket) }
    }

    /// libcurl's `CURLOPT_CLOSESOCKETFUNCTION`; its data is this object.
    static let closeSocketCallback: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, socket in
        guard let context else { return Glibc.close(socket) }
        Unmanaged<CurlSockets>.fromOpaque(context).takeUnretainedValue().close(socket)
        return 0
    }
}
