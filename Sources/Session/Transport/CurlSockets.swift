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
        /// The open file the sources were made for (device and inode): libcurl closes some
        /// sockets itself, without `closeSocket` (7.74's resolver closes the socket pair it
        /// watched), and the next socket may get the same number; a source of the closed file
        /// no longer fires (the kernel dropped its registration), so a watch of another file is
        /// made afresh (7.74's HTTPS requests stalled a third of the time without this).
        var file: FileIdentity?
        /// The descriptor the sources watch: the socket, or for a watch made afresh a duplicate
        /// of it, since libdispatch may still be unregistering the old sources under the
        /// socket's number (a new source joining that registration never fired). Closed with it.
        var descriptor: Int32
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

    /// Watches `socket` for reading and/or writing; `handler` gets libcurl's event bits.
    func watch(_ socket: Int32, read: Bool, write: Bool, handler: @escaping @Sendable (Int32) -> Void) {
        let file = FileIdentity(socket)
        watches.withLock { watches in
            var watch = watches[socket] ?? Watch(file: file, descriptor: socket)
            if watch.file != file {
                // Another file under a reused number: the old sources go, new ones watch a
                // duplicate of this one (or the socket itself, should dup fail).
                watch.read?.cancel()
                watch.write?.cancel()
                let duplicate = dup(socket)
                watch = Watch(file: file, descriptor: duplicate >= 0 ? duplicate : socket)
            }
            let descriptor = watch.descriptor
            watch.isIdle = false
            watch.mayBeInUse = nil
            watch.read = source(watch.read, wanted: read, cancellations: watch.cancellations) {
                let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
                source.setEventHandler { [weak self] in
                    if self?.retireIfIdle(socket) != true { handler(CurlSocket.selectIn) }
                }
                return source
            }
            watch.write = source(watch.write, wanted: write, cancellations: watch.cancellations) {
                let source = DispatchSource.makeWriteSource(fileDescriptor: descriptor, queue: queue)
                source.setEventHandler { handler(CurlSocket.selectOut) }
                return source
            }
            watches[socket] = watch
        }
    }

    /// `existing`, a new source from `make` when one is wanted, or `nil` after cancelling.
    private func source(
        _ existing: (any DispatchSourceProtocol)?, wanted: Bool, cancellations: DispatchGroup, make: () -> any DispatchSourceProtocol
    ) -> (any DispatchSourceProtocol)? {
        guard wanted else {
            existing?.cancel()
            return nil
        }
        if let existing { return existing }
        let source = make()
        cancellations.enter()
        source.setCancelHandler { cancellations.leave() }
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

    /// Cancels the read source of `socket` if libcurl does not watch it, and shuts the
    /// connection down if it sits unused in the pool (a transfer's bytes are its own); whether
    /// libcurl did not watch it.
    private func retireIfIdle(_ socket: Int32) -> Bool {
        watches.withLock { watches in
            guard watches[socket]?.isIdle == true else { return false }
            watches[socket]?.read?.cancel()
            watches[socket]?.read = nil
            if watches[socket]?.mayBeInUse?() != true { _ = shutdown(socket, Int32(SHUT_RDWR)) }
            return true
        }
    }

    /// Closes `socket` once its sources are cancelled.
    func close(_ socket: Int32) {
        let watch: Watch? = watches.withLock { watches in
            let watch = watches.removeValue(forKey: socket)
            watch?.read?.cancel()
            watch?.write?.cancel()
            return watch
        }
        guard let watch else {
            _ = Glibc.close(socket)
            return
        }
        let descriptor = watch.descriptor
        watch.cancellations.notify(queue: queue) {
            _ = Glibc.close(socket)
            if descriptor != socket { _ = Glibc.close(descriptor) }
        }
    }

    /// libcurl's `CURLOPT_CLOSESOCKETFUNCTION`; its data is this object.
    static let closeSocketCallback: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, socket in
        guard let context else { return Glibc.close(socket) }
        Unmanaged<CurlSockets>.fromOpaque(context).takeUnretainedValue().close(socket)
        return 0
    }
}
