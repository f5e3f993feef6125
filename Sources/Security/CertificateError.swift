import Foundation

/// Why certificate data could not be read.
public enum CertificateError: Error, Sendable, Equatable {
    /// The DER encoding is not a well-formed X.509 certificate; the text says where it broke.
    case malformed(String)
    /// PEM text held no `CERTIFICATE` block, or one whose base64 did not decode.
    case invalidPEM
    /// A file could not be read.
    case unreadableFile(String)
}

extension CertificateError: LocalizedError {
    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .malformed(let reason): return "Malformed certificate: \(reason)."
        case .invalidPEM: return "No valid CERTIFICATE block in the PEM text."
        case .unreadableFile(let path): return "Cannot read the certificate file \(path)."
        }
    }
}
