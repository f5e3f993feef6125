import Foundation

/// Why the libcurl transport cannot carry requests, or a request. A manager whose policy needs
/// the transport reports the first kind as `SessionError.securityPolicyUnavailable`; with the
/// default policy it falls back to URLSession's own protocol (and tells its event monitors,
/// `EventMonitor.libcurlTransportUnavailable`). A task fails with `optionRefused` when libcurl
/// refuses what the request asks.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// libcurl could not be loaded; `reason` says which library or symbol was missing.
    case libcurlUnavailable(reason: String)
    /// The libcurl loaded (`version`) is older than `minimum`.
    case libcurlTooOld(version: String, minimum: String)
    /// libcurl `libcurl` uses `backend` ("GnuTLS/3.7.9"), not OpenSSL, in whose handshake
    /// alone the security policy is enforced.
    case tlsBackendUnsupported(libcurl: String, backend: String)
    /// libcurl uses OpenSSL (`libcurlUses`, "OpenSSL/1.0.2k"), which the bridge cannot use:
    /// `reason` names the version or the function it lacks.
    case openSSLUnusable(libcurlUses: String, reason: String)
    /// libcurl uses `libcurlUses` ("OpenSSL/1.1.1w"), another library than the OpenSSL the
    /// bridge loaded (`loaded`, its version text).
    case openSSLMismatch(libcurlUses: String, loaded: String)
    /// libcurl `libcurl` refused option `option` (`CURLOPT_PROXY_CAINFO_BLOB`) with CURLcode
    /// `code`: it needs libcurl `requires` (a release, or a build with a feature).
    case optionRefused(option: String, requires: String, libcurl: String, code: Int32)

    /// The reason in words.
    public var description: String {
        switch self {
        case .libcurlUnavailable(let reason):
            return "libcurl cannot be used: \(reason)"
        case .libcurlTooOld(let version, let minimum):
            return "libcurl \(version) cannot be used: the transport needs libcurl \(minimum) or later"
        case .tlsBackendUnsupported(let libcurl, let backend):
            return "libcurl \(libcurl) uses \(backend), not OpenSSL: the security policy can be enforced only in OpenSSL's handshake"
        case .openSSLUnusable(let libcurlUses, let reason):
            return "libcurl uses \(libcurlUses), which cannot be used: \(reason)"
        case .openSSLMismatch(let libcurlUses, let loaded):
            return "libcurl uses \(libcurlUses) but the OpenSSL loaded is \(loaded): the policy's hook cannot run on libcurl's connections"
        case .optionRefused(let option, let requires, let libcurl, let code):
            return "libcurl \(libcurl) refused \(option) (CURLcode \(code)): it needs \(requires)"
        }
    }

    /// `description`.
    public var errorDescription: String? { description }
}
