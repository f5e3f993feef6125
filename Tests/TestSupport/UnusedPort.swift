import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP port of 127.0.0.1 with nothing listening on it: one the kernel just handed out for a
/// socket that was then closed (a connection to it is refused).
public enum UnusedPort {
    public static func find() -> Int? {
        guard let (descriptor, address) = try? LoopbackSocket.bound() else { return nil }
        close(descriptor)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
