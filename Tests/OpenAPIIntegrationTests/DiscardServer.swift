#if OpenAPI
import AFLocking
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 server for one request with a chunked body, which it reads and drops,
/// counting the bytes received (head and framing included), then answers `204 No Content`.
/// `TestServer` keeps every request body, which an upload of many megabytes should not cost.
final class DiscardServer: Sendable {
    /// The server's port on 127.0.0.1.
    let port: Int
    private let listener: Int32
    private let received = Locked<Int64>(0)

    /// The bytes received so far.
    var bytesReceived: Int64 { received.withLock { $0 } }

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [listener, received] in Self.serve(listener, counting: received) }
        thread.start()
    }

    /// Accepts one connection, reads until the chunked body's last chunk, answers and closes.
    private static func serve(_ listener: Int32, counting received: Locked<Int64>) {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        // The end of a chunked body without trailers; the body's bytes hold no CR or LF.
        let end = Array("\r\n0\r\n\r\n".utf8)
        var tail: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received.withLock { $0 += Int64(count) }
            tail = count >= end.count ? Array(buffer[(count - end.count)..<count]) : Array((tail + buffer[0..<count]).suffix(end.count))
            if tail == end { break }
        }
        let reply = Array("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".utf8)
        _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Stops accepting (a connection being served ends with its request).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
#endif
