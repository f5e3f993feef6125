/// Why certificate data could not be read.
public enum CertificateError: Error, Sendable, Equatable {
    /// The DER encoding is not a well-formed X.509 certificate; the text says where it broke.
    case malformed(String)
    /// PEM text held no `CERTIFICATE` block, or one whose base64 did not decode.
    case invalidPEM
    /// A file could not be read.
    case unreadableFile(String)
}
