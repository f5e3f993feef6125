import OpenSSLBridge
import Foundation

/// A client certificate (with the chain up to its CA) and its private key, for mutual TLS: the
/// libcurl transport presents it in the handshake when a server asks for a certificate, and
/// only then; the manager's `SecurityPolicy` still decides whether the server is trusted. Set
/// it on a manager (`URLSessionManager.clientIdentity`) or for one task. Loading checks that
/// the key belongs to the certificate. The private key is kept in memory unencrypted and never
/// appears in a description, a mirror or an error. Beyond AFNetworking, whose Apple platforms
/// answer a client-certificate challenge with a `SecIdentity` in the delegate.
public struct ClientIdentity: Sendable, Hashable {
    /// The certificate chain, leaf first.
    public let certificates: [Certificate]
    /// The chain as PEM, leaf first, as libcurl takes it.
    package let certificateChainPEM: Data
    /// The private key as unencrypted PEM, as libcurl takes it.
    package let privateKeyPEM: Data

    /// An identity from PEM data: `certificates` holds the leaf and optionally its chain,
    /// `key` the private key (`nil` when it follows the certificates in the same data),
    /// encrypted with `passphrase` or not encrypted.
    public init(pemCertificates: Data, pemKey: Data? = nil, passphrase: String? = nil) throws {
        try self.init(loading: pemCertificates, key: pemKey, pkcs12: false, passphrase: passphrase)
    }

    /// An identity from PEM files (as `curl --cert FILE --key FILE --pass P`): `keyFile` `nil`
    /// reads the key from `certificateFile`.
    public init(certificateFile: URL, keyFile: URL? = nil, passphrase: String? = nil) throws {
        try self.init(pemCertificates: Self.contents(of: certificateFile), pemKey: keyFile.map(Self.contents(of:)), passphrase: passphrase)
    }

    /// An identity from PKCS#12 data (a `.p12` or `.pfx`: certificate, key and chain)
    /// protected by `passphrase`.
    public init(pkcs12Data: Data, passphrase: String) throws {
        try self.init(loading: pkcs12Data, key: nil, pkcs12: true, passphrase: passphrase)
    }

    /// An identity from a PKCS#12 file (as `curl --cert FILE:PASS --cert-type P12`).
    public init(pkcs12File: URL, passphrase: String) throws {
        try self.init(pkcs12Data: Self.contents(of: pkcs12File), passphrase: passphrase)
    }

    private static func contents(of file: URL) throws -> Data {
        guard let data = try? Data(contentsOf: file) else { throw ClientIdentityError.unreadableFile(file.path) }
        return data
    }

    /// Collects what `afn_identity_load` hands over.
    private final class Loaded {
        var chain = Data()
        var key = Data()

        static let sink: @convention(c) (Int32, UnsafePointer<CChar>?, Int, UnsafeMutableRawPointer?) -> Void = { kind, pem, length, context in
            guard let pem, let context else { return }
            let loaded = Unmanaged<Loaded>.fromOpaque(context).takeUnretainedValue()
            let data = Data(bytes: pem, count: length)
            if kind == 0 { loaded.chain = data } else { loaded.key = data }
        }
    }

    private init(loading certificates: Data, key: Data?, pkcs12: Bool, passphrase: String?) throws {
        if let reason = ChainVerifier.unavailableReason { throw ClientIdentityError.unavailable(reason: reason) }
        if key?.isEmpty == true { throw ClientIdentityError.invalidKey }
        let loaded = Loaded()
        let status = certificates.withUnsafeBytes { certificateBytes in
            (key ?? Data()).withUnsafeBytes { keyBytes in
                Self.withOptionalCString(passphrase) { passphrase in
                    afn_identity_load(
                        certificateBytes.bindMemory(to: UInt8.self).baseAddress, certificateBytes.count,
                        key == nil ? nil : keyBytes.bindMemory(to: UInt8.self).baseAddress, keyBytes.count,
                        pkcs12 ? 1 : 0, passphrase, Loaded.sink, Unmanaged.passUnretained(loaded).toOpaque())
                }
            }
        }
        switch Int(status) {
        case AFN_IDENTITY_OK: break
        case AFN_IDENTITY_BAD_CERTIFICATE: throw ClientIdentityError.invalidCertificate
        case AFN_IDENTITY_BAD_KEY: throw ClientIdentityError.invalidKey
        case AFN_IDENTITY_BAD_PKCS12: throw ClientIdentityError.invalidPKCS12
        case AFN_IDENTITY_KEY_MISMATCH: throw ClientIdentityError.keyDoesNotMatchCertificate
        default: throw ClientIdentityError.unavailable(reason: "OpenSSL could not load the identity")
        }
        do {
            self.certificates = try Certificate.certificates(fromPEM: String(decoding: loaded.chain, as: UTF8.self))
        } catch {
            throw ClientIdentityError.invalidCertificate
        }
        certificateChainPEM = loaded.chain
        privateKeyPEM = loaded.key
    }

    private static func withOptionalCString<Result>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
        guard let string else { return body(nil) }
        return string.withCString(body)
    }
}

extension ClientIdentity: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The leaf's common name; never the key.
    public var description: String {
        "ClientIdentity(\(certificates.first?.subjectCommonName.map { "CN=\($0)" } ?? "no common name"), \(certificates.count) certificate(s), private key redacted)"
    }

    /// As `description`.
    public var debugDescription: String { description }

    /// The certificates only, so that `dump` and reflection never reach the key.
    public var customMirror: Mirror { Mirror(self, children: ["certificates": certificates]) }
}
