import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to a port of 127.0.0.1 the kernel chose, listening when given a backlog:
/// what the test servers and listeners of TestSupport start from.
enum LoopbackSocket {
    /// The socket and its address (with the port chosen); throws the error of the call that
    /// failed, the socket closed.
    static func bound(listeningWith backlog: Int32? = nil) throws -> (descriptor: Int32, address: sockaddr_in) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && (backlog.map { listen(descriptor, $0) == 0 } ?? true)
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard ready else {
            let error = POSIXErrorCode(rawValue: errno) ?? .EINVAL
            close(descriptor)
            throw POSIXError(error)
        }
        return (descriptor, address)
    }
}
