import AFNetworking
import Foundation
import TestServerTLSBridge
#if canImport(Glibc)
import Glibc
#endif

/// One accepted connection of a `TestServer`, as a byte stream: the socket itself, or TLS over
/// it. Used by the one thread that serves the connection, which closes it.
struct ServerConnection {
    let descriptor: Int32
    private let tls: UnsafeMutableRawPointer?
    /// The certificate the client presented in the handshake, if any.
    let clientCertificate: Certificate?

    /// The socket as it is.
    init(plain descriptor: Int32) {
        self.descriptor = descriptor
        tls = nil
        clientCertificate = nil
    }

    /// TLS accepted on the socket with `context` (the handshake runs here); `nil` when it fails.
    init?(descriptor: Int32, context: ServerTLSContext) {
        guard let connection = afn_test_tls_accept(context.pointer, descriptor) else { return nil }
        self.descriptor = descriptor
        tls = connection
        final class Sink {
            var der: Data?
        }
        let sink = Sink()
        withExtendedLifetime(sink) {
            _ = afn_test_tls_peer_certificate(connection, { der, length, context in
                Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().der = Data(bytes: der!, count: length)
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        clientCertificate = sink.der.flatMap { try? Certificate(derEncoded: $0) }
    }

    /// Reads into `buffer`: the count, or 0 when the peer closed or the read failed.
    func receive(into buffer: inout [UInt8]) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                if let tls { return afn_test_tls_read(tls, bytes.baseAddress, bytes.count) }
                return recv(descriptor, bytes.baseAddress, bytes.count, 0)
            }
            // A signal interrupting a blocking read is not the peer closing.
            if count < 0, tls == nil, errno == EINTR { continue }
            return max(count, 0)
        }
    }

    /// Writes all of `bytes`; `false` when the connection failed.
    func send(_ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { buffer in
            guard buffer.count > 0 else { return true }
            if let tls { return afn_test_tls_write(tls, buffer.baseAddress, buffer.count) == 0 }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.send(descriptor, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Frees the TLS state (if any) and closes the socket.
    func close() {
        if let tls { afn_test_tls_free(tls) }
        Glibc.close(descriptor)
    }
}
