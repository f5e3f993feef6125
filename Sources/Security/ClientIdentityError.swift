import Foundation

/// Why a `ClientIdentity` could not be loaded. No case carries key material.
public enum ClientIdentityError: Error, Sendable, Equatable {
    /// A file could not be read.
    case unreadableFile(String)
    /// The certificate data held no PEM `CERTIFICATE` block OpenSSL could decode.
    case invalidCertificate
    /// No private key could be read: missing, malformed, or encrypted with another passphrase.
    case invalidKey
    /// The PKCS#12 data could not be decoded: malformed, without a certificate and key, or
    /// protected by another passphrase.
    case invalidPKCS12
    /// The private key does not belong to the certificate.
    case keyDoesNotMatchCertificate
    /// OpenSSL could not be loaded or failed; the text says why.
    case unavailable(reason: String)
}

extension ClientIdentityError: LocalizedError {
    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .unreadableFile(let path): return "Cannot read the client identity file \(path)."
        case .invalidCertificate: return "The client certificate is not a valid PEM certificate."
        case .invalidKey: return "The client private key cannot be read (malformed, or a wrong or missing passphrase)."
        case .invalidPKCS12: return "The PKCS#12 client identity cannot be read (malformed, or a wrong passphrase)."
        case .keyDoesNotMatchCertificate: return "The client private key does not belong to the client certificate."
        case .unavailable(let reason): return "Client identities cannot be loaded: \(reason)."
        }
    }
}
