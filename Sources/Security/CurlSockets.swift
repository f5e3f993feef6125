import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The dispatch sources watching libcurl's sockets. A socket is closed only after its
/// sources are cancelled (libdispatch must not watch a closed, possibly reused descriptor),
/// so libcurl closes sockets through `closeSocket`.
final class CurlSockets: @unchecked Sendable {
    // @unchecked: `watches` is guarded by `lock`.

    private struct Watch {
        var read: (any DispatchSourceRead)?
        var write: (any DispatchSourceWrite)?
        let cancellations = DispatchGroup()
    }

    private let queue: DispatchQueue
    private let lock = NSLock()
    private var watches: [Int32: Watch] = [:]

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Watches `socket` for reading and/or writing; `handler` gets libcurl's event bits.
    func watch(_ socket: Int32, read: Bool, write: Bool, handler: @escaping @Sendable (Int32) -> Void) {
        lock.withLock {
            var watch = watches[socket] ?? Watch()
            if read, watch.read == nil {
                let source = DispatchSource.makeReadSource(fileDescriptor: socket, queue: queue)
                source.setEventHandler { handler(CurlSocket.selectIn) }
                watch.read = source
                track(source, in: watch.cancellations)
            } else if !read, let source = watch.read {
                source.cancel()
                watch.read = nil
            }
            if write, watch.write == nil {
                let source = DispatchSource.makeWriteSource(fileDescriptor: socket, queue: queue)
                source.setEventHandler { handler(CurlSocket.selectOut) }
                watch.write = source
                track(source, in: watch.cancellations)
            } else if !write, let source = watch.write {
                source.cancel()
                watch.write = nil
            }
            watches[socket] = watch
        }
    }

    /// Stops watching `socket`; it stays open until libcurl closes it.
    func unwatch(_ socket: Int32) {
        lock.withLock {
            watches[socket]?.read?.cancel()
            watches[socket]?.write?.cancel()
            watches[socket]?.read = nil
            watches[socket]?.write = nil
        }
    }

    /// Closes `socket` once its sources are cancelled.
    func close(_ socket: Int32) {
        let watch: Watch? = lock.withLock {
            let watch = watches.removeValue(forKey: socket)
            watch?.read?.cancel()
            watch?.write?.cancel()
            return watch
        }
        guard let watch else {
            _ = Glibc.close(socket)
            return
        }
        watch.cancellations.notify(queue: queue) { _ = Glibc.close(socket) }
    }

    private func track(_ source: any DispatchSourceProtocol, in group: DispatchGroup) {
        group.enter()
        source.setCancelHandler { group.leave() }
        source.resume()
    }

    /// libcurl's `CURLOPT_CLOSESOCKETFUNCTION`; its data is this object.
    static let closeSocketCallback: @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32 = { context, socket in
        guard let context else { return Glibc.close(socket) }
        Unmanaged<CurlSockets>.fromOpaque(context).takeUnretainedValue().close(socket)
        return 0
    }
}
