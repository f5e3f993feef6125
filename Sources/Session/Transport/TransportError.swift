import Foundation

/// Why the libcurl transport cannot carry requests. A manager whose policy needs the
/// transport reports it as `SessionError.securityPolicyUnavailable`; with the default policy it
/// falls back to URLSession's own protocol.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libcurl (or the OpenSSL its TLS connections use) could not be loaded; `reason` says
    /// which library or symbol was missing.
    case libcurlUnavailable(reason: String)

    /// The reason in words.
    public var description: String {
        switch self {
        case .libcurlUnavailable(let reason): return "libcurl cannot be used: \(reason)"
        }
    }
}
