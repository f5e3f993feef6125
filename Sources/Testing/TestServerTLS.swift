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

    /// A fresh self-signed certificate for 127.0.0.1, ::1 and localhost, valid for `days` days
    /// from an hour ago (default 1), with its P-256 key.
    public static func selfSigned(validForDays days: Int = 1) throws -> TestServerTLS {
        final class Sink {
            var certificate = Data()
            var key = Data()
        }
        let sink = Sink()
        var error = [CChar](repeating: 0, count: 256)
        let status = withExtendedLifetime(sink) {
            afn_test_tls_generate(Int32(clamping: days), { kind, pem, length, context in
                let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
                let bytes = Data(bytes: pem!, count: length)
                if kind == 0 { sink.certificate = bytes } else { sink.key = bytes }
            }, Unmanaged.passUnretained(sink).toOpaque(), &error, error.count)
        }
        guard status == 0 else { throw TestServerError.tls(Self.text(error)) }
        return try TestServerTLS(certificateChainPEM: sink.certificate, privateKeyPEM: sink.key)
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
        return ServerTLSContext(pointer: context)
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
