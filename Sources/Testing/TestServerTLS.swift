import AFNetworking
import Foundation
import TestServerTLSBridge

/// The certificate and key a `TestServer` serves TLS with. `selfSigned()` makes a fresh one for
/// each server (a P-256 key and a certificate for 127.0.0.1, ::1 and localhost, valid from an
/// hour ago), so no test shares a key and none expires in the repository; or bring your own PEM
/// chain and key to test a particular chain. Trust it in the manager under test with
/// `securityPolicy` (the certificate as the only anchor): a test of TLS needs no
/// `allowInvalidCertificates`.
public struct TestServerTLS: Sendable {
    /// The certificate chain, leaf first, as PEM.
    public let certificateChainPEM: Data
    /// The leaf's private key, as PEM.
    public let privateKeyPEM: Data
    /// The chain, leaf first.
    public let certificates: [Certificate]

    /// Serves `certificateChainPEM` (leaf first) with `privateKeyPEM`.
    /// Throws `TestServerError.tls` when either cannot be read.
    public init(certificateChainPEM: Data, privateKeyPEM: Data) throws {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
        do {
            certificates = try Certificate.certificates(fromPEM: String(decoding: certificateChainPEM, as: UTF8.self))
        } catch {
            throw TestServerError.tls("the certificate chain is not PEM: \(error)")
        }
        guard !certificates.isEmpty else { throw TestServerError.tls("the certificate chain is empty") }
    }

    /// The authorities a client's certificate must chain to; empty (the default) when the
    /// server asks for none.
    public private(set) var clientCertificateAuthorities: [Certificate] = []

    /// A fresh self-signed certificate for 127.0.0.1, ::1 and localhost, valid for `days` days
    /// from an hour ago (default 1), with its P-256 key.
    public static func selfSigned(validForDays days: Int = 1) throws -> TestServerTLS {
        let made = try generate(validForDays: days, forClient: false)
        return try TestServerTLS(certificateChainPEM: made.certificate, privateKeyPEM: made.key)
    }

    /// This configuration, asking every client for a certificate issued by (or one of)
    /// `authorities`: a handshake without one, or with another, fails, and each request records
    /// the certificate its connection presented (`RecordedRequest.clientCertificate`).
    public func requiringClientCertificates(issuedBy authorities: [Certificate]) -> TestServerTLS {
        var configuration = self
        configuration.clientCertificateAuthorities = authorities
        return configuration
    }

    /// A fresh self-signed certificate (a server's or a client's) and its P-256 key, as PEM.
    static func generate(validForDays days: Int, forClient: Bool) throws -> (certificate: Data, key: Data) {
        final class Sink {
            var certificate = Data()
            var key = Data()
        }
        let sink = Sink()
        var error = [CChar](repeating: 0, count: 256)
        let status = withExtendedLifetime(sink) {
            afn_test_tls_generate(Int32(clamping: days), forClient ? 1 : 0, { kind, pem, length, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                let bytes = Data(bytes: pem!, count: length)
                if kind == 0 { sink.certificate = bytes } else { sink.key = bytes }
            }, Unmanaged.passUnretained(sink).toOpaque(), &error, error.count)
        }
        guard status == 0 else { throw TestServerError.tls(text(error)) }
        return (sink.certificate, sink.key)
    }

    /// The C string in `buffer`.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A security policy that trusts this chain's leaf as its only anchor and checks the host
    /// name, for the manager under test.
    public var securityPolicy: SecurityPolicy {
        SecurityPolicy(anchorCertificates: [certificates[0]])
    }

    /// An OpenSSL server context for this chain and key.
    func makeContext() throws -> ServerTLSContext {
        var error = [CChar](repeating: 0, count: 256)
        let context = certificateChainPEM.withUnsafeBytes { chain in
            privateKeyPEM.withUnsafeBytes { key in
                afn_test_tls_context(
                    chain.baseAddress?.assumingMemoryBound(to: CChar.self), chain.count,
                    key.baseAddress?.assumingMemoryBound(to: CChar.self), key.count, &error, error.count)
            }
        }
        guard let context else { throw TestServerError.tls(Self.text(error)) }
        let server = ServerTLSContext(pointer: context)
        guard !clientCertificateAuthorities.isEmpty else { return server }
        let anchors = clientCertificateAuthorities.map { [UInt8]($0.derEncoded) }
        let status = withArrayOfPointers(anchors) { pointers in
            afn_test_tls_require_client_certificates(context, pointers, anchors.map(\.count), anchors.count, &error, error.count)
        }
        guard status == 0 else { throw TestServerError.tls(Self.text(error)) }
        return server
    }
}

/// An OpenSSL server context, freed with its last holder. `@unchecked Sendable`: OpenSSL's
/// SSL_CTX is safe to share between threads once set up, and it is not changed after `init`.
final class ServerTLSContext: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init(pointer: UnsafeMutableRawPointer) {
        self.pointer = pointer
    }

    deinit {
        afn_test_tls_context_free(pointer)
    }
}

/// Calls `body` with a pointer to each of `arrays`' bytes, valid for the call.
private func withArrayOfPointers<Result>(_ arrays: [[UInt8]], _ body: ([UnsafePointer<UInt8>?]) -> Result) -> Result {
    func nest(_ index: Int, _ pointers: [UnsafePointer<UInt8>?]) -> Result {
        guard index < arrays.count else { return body(pointers) }
        return arrays[index].withUnsafeBufferPointer { nest(index + 1, pointers + [$0.baseAddress]) }
    }
    return nest(0, [])
}

