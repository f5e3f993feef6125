import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket of 127.0.0.1 whose accept queue is full: a backlog of 0 filled by
/// connections nobody accepts, so that the kernel drops any further SYN and a connection to
/// `port` is never established (what a connect timeout needs). Closed by `close()`.
public final class FullListener: Sendable {
    /// The port listened on.
    public let port: Int
    private let descriptors: [Int32]

    /// Listens on a free port with a backlog of 0 and fills its queue with four connections.
    public init() throws {
        var (listener, address) = try LoopbackSocket.bound(listeningWith: 0)
        var descriptors = [listener]
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard filler >= 0 else { continue }
            descriptors.append(filler)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        // The fillers' handshakes complete (or their SYNs are dropped) in the kernel meanwhile.
        usleep(200_000)
        port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptors = descriptors
    }

    /// Closes the listener and its fillers.
    public func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}
