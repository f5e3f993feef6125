import Foundation

/// What a server presented during a TLS handshake: its certificate chain, leaf first.
/// AFNetworking evaluates a `SecTrustRef`; this is its Linux counterpart.
public struct ServerTrust: Sendable, Hashable {
    /// The presented certificates, leaf first.
    public let certificates: [Certificate]

    /// A trust over `certificates`, leaf first.
    public init(certificates: [Certificate]) {
        self.certificates = certificates
    }

    /// A trust over DER-encoded certificates, leaf first. Throws `CertificateError` when one is malformed.
    public init(derChain: [Data]) throws {
        certificates = try derChain.map(Certificate.init(derEncoded:))
    }
}
