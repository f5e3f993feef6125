import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds the path the kernel would use for an address, without sending a packet: `connect()`
/// a UDP socket (which only selects a route and a source address), `getsockname()` for that
/// source, and `getifaddrs()` for the interface owning it.
enum RouteProbe {
    /// An IPv4 or IPv6 socket address.
    struct Address: Sendable, Equatable {
        fileprivate let storage: SocketAddressBytes
        let family: Int32

        /// Parses an IPv4 or IPv6 literal; `nil` for anything else.
        init?(literal: String) {
            var v4 = in_addr()
            var v6 = in6_addr()
            if inet_pton(AF_INET, literal, &v4) == 1 {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(9).bigEndian
                address.sin_addr = v4
                storage = SocketAddressBytes(address)
                family = AF_INET
            } else if inet_pton(AF_INET6, literal, &v6) == 1 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(9).bigEndian
                address.sin6_addr = v6
                storage = SocketAddressBytes(address)
                family = AF_INET6
            } else {
                return nil
            }
        }

        fileprivate init(storage: SocketAddressBytes, family: Int32) {
            self.storage = storage
            self.family = family
        }
    }

    /// The path to `address`, or `nil` when the kernel has no route.
    static func path(to address: Address) -> ReachabilityPath? {
        let socketDescriptor = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketDescriptor >= 0 else { return nil }
        defer { close(socketDescriptor) }
        let connected = address.storage.withSockaddr { connect(socketDescriptor, $0, $1) }
        guard connected == 0 else { return nil }
        var source = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &source) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        guard named == 0 else { return nil }
        return interface(owning: source)
    }

    /// Resolves `host` (off the caller's thread: the manager calls this on its own queue).
    /// An unresolvable host gives no addresses.
    static func resolve(_ host: String) -> [Address] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var entry = list
        while let current = entry {
            if let raw = current.pointee.ai_addr, current.pointee.ai_family == AF_INET || current.pointee.ai_family == AF_INET6 {
                let bytes = SocketAddressBytes(raw: raw, length: Int(current.pointee.ai_addrlen))
                let address = Address(storage: bytes, family: current.pointee.ai_family)
                if !addresses.contains(address) { addresses.append(address) }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    private static func interface(owning source: sockaddr_storage) -> ReachabilityPath? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, sameHost(address, source) else { continue }
            let flags = current.pointee.ifa_flags
            let name = String(cString: current.pointee.ifa_name)
            let isLoopback = flags & UInt32(IFF_LOOPBACK) != 0
            return ReachabilityPath(
                interfaceName: name, interfaceKind: InterfaceKind.of(interface: name, isLoopback: isLoopback),
                isUp: flags & UInt32(IFF_UP) != 0, isRunning: flags & UInt32(IFF_RUNNING) != 0)
        }
        return nil
    }

    private static func sameHost(_ address: UnsafeMutablePointer<sockaddr>, _ source: sockaddr_storage) -> Bool {
        var source = source
        guard address.pointee.sa_family == source.ss_family else { return false }
        return withUnsafeBytes(of: &source) { sourceBytes in
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                let lhs = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
                return lhs == sourceBytes.loadUnaligned(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!, as: UInt32.self)
            case AF_INET6:
                let lhs = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
                let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
                return lhs.elementsEqual(sourceBytes[offset..<(offset + 16)])
            default:
                return false
            }
        }
    }
}

/// A socket address's raw bytes (at most `sockaddr_storage`), so that the value is `Sendable`.
struct SocketAddressBytes: Sendable, Equatable {
    private let bytes: [UInt8]

    init<T>(_ address: T) {
        var address = address
        bytes = withUnsafeBytes(of: &address) { Array($0) }
    }

    init(raw: UnsafePointer<sockaddr>, length: Int) {
        bytes = Array(UnsafeRawBufferPointer(start: raw, count: length))
    }

    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        bytes.withUnsafeBytes { raw in
            body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }
}
