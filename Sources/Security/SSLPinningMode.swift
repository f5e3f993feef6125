/// What a `SecurityPolicy` pins. AFNetworking: `AFSSLPinningMode`.
public enum SSLPinningMode: Sendable, Hashable {
    /// Nothing: the chain is checked against the trust anchors only.
    case none
    /// Some certificate of the server's chain must have a pinned public key (`SubjectPublicKeyInfo`).
    case publicKey
    /// The chain must lead to a pinned certificate, which acts as its trust anchor.
    case certificate
}
