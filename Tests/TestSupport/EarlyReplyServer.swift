import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server on 127.0.0.1 that answers a request as soon as its head has arrived, before any
/// of its body: it writes `reply` as given, then either closes the connection or keeps it open,
/// reading and dropping whatever comes, until the client closes it or `stop()` is called. For
/// the tests of a response that comes while the request's body is still being produced, which
/// the `TestServer` of AFNetworkingTesting (answering complete requests only) cannot give, as
/// the fault server's `/raw/0` and `/duplex/0` do.
public final class EarlyReplyServer: @unchecked Sendable {
    // @unchecked: `connections` and `stopped` are guarded by `lock`; the rest is immutable.
    /// `http://127.0.0.1:PORT`.
    public let url: URL
    private let listener: Int32
    private let reply: Data
    private let closesAfterReply: Bool
    private let lock = NSLock()
    private var connections: [Int32] = []
    private var stopped = false

    /// Listens on a free port of 127.0.0.1; each request is answered `reply` once its head
    /// arrived, and its connection closed after it when `closesAfterReply` (default `true`).
    public init(reply: String, closesAfterReply: Bool = true) throws {
        let (descriptor, address) = try LoopbackSocket.bound(listeningWith: 16)
        listener = descriptor
        url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        self.reply = Data(reply.utf8)
        self.closesAfterReply = closesAfterReply
        let thread = Thread { [self] in acceptConnections() }
        thread.start()
    }

    /// Stops listening and closes every connection. Idempotent.
    public func stop() {
        let open: [Int32]? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            return connections
        }
        guard let open else { return }
        // Shut down rather than close: the threads blocked in accept() and recv() return and
        // each closes its own descriptor.
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in open { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    private func acceptConnections() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR, !lock.withLock({ stopped }) { continue }
                return
            }
            let accepted = lock.withLock {
                guard !stopped else { return false }
                connections.append(connection)
                return true
            }
            guard accepted else {
                close(connection)
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    /// Reads up to the end of the head, writes the reply, then closes or drains.
    private func serve(_ connection: Int32) {
        defer {
            lock.withLock { connections.removeAll { $0 == connection } }
            close(connection)
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let headEnd: [UInt8] = [13, 10, 13, 10]
        while !received.indices.contains(where: { received[$0...].starts(with: headEnd) }) {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            received += buffer[0..<count]
        }
        guard reply.withUnsafeBytes({ send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == reply.count,
              !closesAfterReply else { return }
        while recv(connection, &buffer, buffer.count, 0) > 0 {}
    }
}
