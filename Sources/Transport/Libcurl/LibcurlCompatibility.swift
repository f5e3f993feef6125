/// Whether the libcurl loaded can carry requests under the manager's policy, from what its
/// bridge found (`Facts`): the policy is enforced only in OpenSSL's handshake, through
/// `CURLOPT_SSL_CTX_FUNCTION`, so libcurl must use OpenSSL, and the OpenSSL the bridge calls on
/// libcurl's `SSL_CTX` must be that same library (two OpenSSL versions in one process do not
/// share an `SSL_CTX` layout). Pure: tested with the facts of every variant.
enum LibcurlCompatibility {
    /// The oldest libcurl the transport runs on: 7.61.0, where the `*_TIME_T` timing infos of
    /// the metrics arrived; every option set on every request is older (the protocols by name,
    /// 7.85, have a bitmask before it; `EasyHandleOptions`). What a request asks beyond that
    /// (trailers, a client identity, proxy anchors) is checked as it is set.
    static let minimumVersion = (number: UInt32(0x07_3D_00), name: "7.61.0")

    /// What the bridges found when they loaded.
    struct Facts: Equatable {
        /// libcurl's version ("7.88.1") and its number (0x075801).
        var version: String
        var versionNumber: UInt32
        /// The TLS library libcurl reports (`curl_version_info()->ssl_version`), `nil` for none.
        var tlsBackend: String?
        /// Why OpenSSLBridge could not load, if it could not.
        var openSSLError: String?
        /// `OpenSSL_version(OPENSSL_VERSION)` of the OpenSSL the bridge loaded.
        var openSSLVersion: String?
        /// Whether that OpenSSL is the library libcurl calls (found through libcurl's own
        /// symbols, with the same `SSL_CTX` functions).
        var openSSLIsLibcurls: Bool
    }

    /// Why the transport cannot use the libcurl `facts` describe, or `nil` when it can.
    static func problem(with facts: Facts) -> TransportError? {
        if facts.versionNumber < minimumVersion.number {
            return .libcurlTooOld(version: facts.version, minimum: minimumVersion.name)
        }
        // A libcurl built with several backends names the one it uses first, the others in
        // parentheses ("OpenSSL/3.0.2 (GnuTLS/3.7.3)").
        let backend = facts.tlsBackend.flatMap { $0.split(separator: " ").first.map(String.init) } ?? ""
        guard backend.utf8.starts(with: "OpenSSL/".utf8) else {
            return .tlsBackendUnsupported(libcurl: facts.version, backend: backend.isEmpty ? "no TLS library" : facts.tlsBackend ?? "")
        }
        if let error = facts.openSSLError { return .openSSLUnusable(libcurlUses: backend, reason: error) }
        guard let loaded = facts.openSSLVersion, isSameRelease(backend, as: loaded) else {
            return .openSSLMismatch(libcurlUses: backend, loaded: facts.openSSLVersion ?? "no version text")
        }
        guard facts.openSSLIsLibcurls else {
            return .openSSLMismatch(libcurlUses: backend, loaded: "\(loaded), another copy than the library libcurl calls")
        }
        return nil
    }

    /// Whether libcurl's `OpenSSL/3.0.17` names the release whose `OpenSSL_version` text is
    /// `loaded` ("OpenSSL 3.0.17 1 Jul 2025"; 1.1.1: "OpenSSL 1.1.1w  11 Sep 2023"): the same
    /// version, then a space or the end. Compared as bytes.
    static func isSameRelease(_ backend: String, as loaded: String) -> Bool {
        let release = Array(backend.utf8.dropFirst("OpenSSL/".utf8.count))
        let expected = Array("OpenSSL ".utf8) + release
        let text = Array(loaded.utf8)
        guard !release.isEmpty, text.starts(with: expected) else { return false }
        return text.count == expected.count || text[expected.count] == UInt8(ascii: " ")
    }
}
