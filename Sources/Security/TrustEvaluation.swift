/// The outcome of `SecurityPolicy.evaluation(of:forDomain:)`: trusted, or why not.
/// AFNetworking answers only yes or no.
public enum TrustEvaluation: Sendable, Hashable, CustomStringConvertible {
    /// The server may be trusted.
    case trusted
    /// The server must not be trusted, for `reason`.
    case rejected(TrustFailure)

    /// Whether the evaluation trusts the server.
    public var isTrusted: Bool { self == .trusted }

    /// The reason of a rejection, or `nil` when trusted.
    public var failure: TrustFailure? {
        if case .rejected(let failure) = self { return failure }
        return nil
    }

    /// "trusted", or "rejected: " and the reason.
    public var description: String {
        switch self {
        case .trusted: return "trusted"
        case .rejected(let failure): return "rejected: \(failure)"
        }
    }
}

/// Why a `SecurityPolicy` rejected a server.
public enum TrustFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server presented no certificate.
    case noCertificates
    /// Invalid certificates are allowed and the domain is to be validated, but nothing is
    /// pinned: a self-signed certificate's name proves nothing, so AFNetworking refuses this.
    case domainValidationNeedsPinning
    /// The chain does not verify against the trust anchors; `reason` is OpenSSL's text.
    case invalidChain(reason: String)
    /// The chain verifies but for a certificate's dates: expired or not yet valid; `reason`
    /// is OpenSSL's text.
    case certificateDateInvalid(reason: String)
    /// The chain leads to no trust anchor (a self-signed certificate, an unknown issuer);
    /// `reason` is OpenSSL's text.
    case unknownRoot(reason: String)
    /// A certificate of the chain may not identify a TLS server: the leaf's key usage lacks
    /// `digitalSignature`, `keyEncipherment` and `keyAgreement`, or its extended key usage (or
    /// an issuer's) lacks `serverAuth` (a client or e-mail certificate); `reason` is OpenSSL's text.
    case notForServerAuthentication(reason: String)
    /// The leaf certificate does not name `domain`.
    case domainMismatch(domain: String)
    /// No certificate of the verified chain is pinned.
    case noPinnedCertificate
    /// No public key of the chain is pinned.
    case noPinnedPublicKey
    /// The TLS libraries could not be loaded, so nothing can be verified.
    case verifierUnavailable(reason: String)

    /// The reason in words.
    public var description: String {
        switch self {
        case .noCertificates: return "the server presented no certificate"
        case .domainValidationNeedsPinning: return "validating the domain of invalid certificates requires pinned certificates"
        case .invalidChain(let reason), .certificateDateInvalid(let reason), .unknownRoot(let reason):
            return "the certificate chain is not valid: \(reason)"
        case .notForServerAuthentication(let reason):
            return "the certificate's key usage or extended key usage does not allow a TLS server (\(reason))"
        case .domainMismatch(let domain): return "the certificate does not name \(domain)"
        case .noPinnedCertificate: return "no certificate of the chain is pinned"
        case .noPinnedPublicKey: return "no public key of the chain is pinned"
        case .verifierUnavailable(let reason): return "certificates cannot be verified: \(reason)"
        }
    }
}

extension TrustEvaluation {
    /// The `userInfo` key of the `TrustEvaluation` in a `URLError.serverCertificateUntrusted`
    /// raised by a manager's policy.
    public static let errorUserInfoKey = "AFNetworkingTrustEvaluation"
}
