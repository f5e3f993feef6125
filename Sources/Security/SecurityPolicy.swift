import Foundation

/// How a manager decides whether to trust an HTTPS server: pinned certificates or public
/// keys, trust anchors, and whether invalid certificates or other domains are tolerated.
///
/// A manager's transport checks every HTTPS connection against it during the TLS handshake,
/// before a byte of the request is sent; this type only decides, from the presented chain.
/// AFNetworking: `AFSecurityPolicy`.
public struct SecurityPolicy: Sendable, Hashable {
    /// What is pinned. Default `.none`.
    public var pinningMode: SSLPinningMode
    /// Pinned certificates: trust anchors in `.certificate` mode, sources of pinned keys in
    /// `.publicKey` mode. Default: none.
    public var pinnedCertificates: [Certificate]
    /// Further pinned public keys in `.publicKey` mode, as base64 SHA-256 of the
    /// `SubjectPublicKeyInfo` (`Certificate.publicKeyPinSHA256`; a `sha256/` prefix is
    /// accepted). Default: none. Beyond AFNetworking.
    public var pinnedPublicKeyHashes: Set<String>
    /// Trust anchors replacing the system's trust store when the chain is verified in
    /// `.none` and `.publicKey` modes (a private CA for internal services). Default: none, the
    /// system's store. Beyond AFNetworking.
    public var anchorCertificates: [Certificate]
    /// Whether servers with invalid or expired certificates, or certificates of an untrusted
    /// issuer, are trusted (pins still apply). Default `false`.
    public var allowInvalidCertificates: Bool
    /// Whether the leaf certificate must name the host. Default `true`.
    public var validatesDomainName: Bool
    /// Whether a chain may end at any trusted certificate, such as an intermediate CA or the
    /// server's own certificate given as an anchor, rather than only at a self-signed root.
    /// Default `true`, as curl (`CURLSSLOPT_NO_PARTIALCHAIN` turns it off). Beyond AFNetworking.
    public var trustsPartialChains: Bool

    /// A policy in `pinningMode` with `pinnedCertificates`. AFNetworking: `policyWithPinningMode:withPinnedCertificates:`.
    public init(
        pinningMode: SSLPinningMode = .none, pinnedCertificates: [Certificate] = [], pinnedPublicKeyHashes: Set<String> = [],
        anchorCertificates: [Certificate] = [], allowInvalidCertificates: Bool = false, validatesDomainName: Bool = true,
        trustsPartialChains: Bool = true
    ) {
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates
        self.pinnedPublicKeyHashes = pinnedPublicKeyHashes
        self.anchorCertificates = anchorCertificates
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.trustsPartialChains = trustsPartialChains
    }

    /// No pinning, the system's trust store, valid certificates naming the host: what
    /// URLSession itself enforces. AFNetworking: `defaultPolicy`.
    public static let `default` = SecurityPolicy()

    /// Whether this policy asks for more than URLSession's own checks, so that the manager
    /// must enforce it itself.
    public var needsEnforcement: Bool { self != .default }

    /// Every certificate in the files at `urls` and, for a directory, in its `.pem`, `.crt`,
    /// `.cer` and `.der` files (DER or PEM, single or bundles). Throws `CertificateError`.
    /// AFNetworking: `certificatesInBundle:` (DER `.cer` files only).
    public static func certificates(at urls: [URL]) throws -> [Certificate] {
        try urls.flatMap { url -> [Certificate] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw CertificateError.unreadableFile(url.path)
            }
            guard isDirectory.boolValue else { return try Certificate.certificates(contentsOf: url) }
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            return try names.filter { ["pem", "crt", "cer", "der"].contains(($0 as NSString).pathExtension.lowercased()) }
                .flatMap { try Certificate.certificates(contentsOf: url.appendingPathComponent($0)) }
        }
    }

    /// Whether the server may be trusted for `domain` (`nil`: no host check).
    /// AFNetworking: `evaluateServerTrust:forDomain:`.
    public func evaluate(serverTrust: ServerTrust, forDomain domain: String?) -> Bool {
        evaluation(of: serverTrust, forDomain: domain).isTrusted
    }

    /// Evaluates the server's chain for `domain` with AFNetworking's rules:
    /// 1. with a domain, invalid certificates allowed, domain validation on and nothing pinned:
    ///    rejected (a self-signed certificate's name proves nothing);
    /// 2. the chain is valid when it verifies as a TLS server's (OpenSSL's verifier with the
    ///    purpose, flags and security level curl's handshake uses) against the anchors (the
    ///    pinned certificates in `.certificate` mode, else `anchorCertificates` or the
    ///    system's) and, with domain validation, the leaf names the domain;
    /// 3. `.none`: trusted when valid or invalid certificates are allowed; otherwise an
    ///    invalid chain is rejected unless allowed, then
    ///    `.certificate`: some certificate of the verified chain is pinned;
    ///    `.publicKey`: some public key of the verified chain is pinned.
    /// The verified chain is the path OpenSSL built from the leaf to a trust anchor, as
    /// AFNetworking pins the evaluated trust chain; where the chain did not verify (invalid
    /// certificates allowed) it is the leaf alone. Other certificates the server sends prove
    /// nothing: an impostor holding any valid certificate for the host can append the real
    /// server's, which is public (OkHttp's CVE-2016-2402).
    public func evaluation(of serverTrust: ServerTrust, forDomain domain: String?) -> TrustEvaluation {
        guard let leaf = serverTrust.certificates.first else { return .rejected(.noCertificates) }
        if domain != nil, allowInvalidCertificates, validatesDomainName, pinningMode == .none || pinnedCertificates.isEmpty {
            return .rejected(.domainValidationNeedsPinning)
        }
        let anchors = pinningMode == .certificate ? pinnedCertificates : anchorCertificates
        var verifiedChain = [leaf.derEncoded]
        var invalidity: TrustFailure?
        switch ChainVerifier.verify(serverTrust.certificates, anchors: anchors, partialChains: trustsPartialChains) {
        case .success(let chain): verifiedChain = chain
        case .failure(let failure):
            if case .verifierUnavailable = failure { return .rejected(failure) }
            invalidity = failure
        }
        if invalidity == nil, validatesDomainName, let domain, !leaf.matches(hostname: domain) {
            invalidity = .domainMismatch(domain: domain)
        }
        if let invalidity, !allowInvalidCertificates { return .rejected(invalidity) }
        switch pinningMode {
        case .none:
            return .trusted
        case .certificate:
            let pinned = Set(pinnedCertificates.map(\.derEncoded))
            return verifiedChain.contains(where: pinned.contains) ? .trusted : .rejected(.noPinnedCertificate)
        case .publicKey:
            let pinned = pinnedKeyHashes
            let keys = verifiedChain.lazy.compactMap { try? Certificate(derEncoded: $0).publicKeyPinSHA256 }
            return keys.contains(where: pinned.contains) ? .trusted : .rejected(.noPinnedPublicKey)
        }
    }

    private var pinnedKeyHashes: Set<String> {
        Set(pinnedCertificates.map(\.publicKeyPinSHA256)).union(pinnedPublicKeyHashes.map { hash in
            hash.hasPrefix("sha256/") ? String(hash.dropFirst("sha256/".count)) : hash
        })
    }
}
