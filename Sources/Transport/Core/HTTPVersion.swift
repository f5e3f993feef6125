import Foundation

/// Which HTTP version the libcurl transport speaks (`URLSessionManager.httpVersion`). Beyond
/// AFNetworking.
public enum HTTPVersion: Sendable, Hashable {
    /// HTTP/2 where TLS negotiates it (ALPN), with the requests to one origin multiplexed on one
    /// connection; HTTP/1.1 otherwise, and over cleartext. The default.
    case automatic
    /// HTTP/1.1 only (curl's `--http1.1`).
    case http1_1
    /// HTTP/2 over cleartext without an upgrade, for servers known to speak it (curl's
    /// `--http2-prior-knowledge`); HTTPS still negotiates. Each cleartext connection carries
    /// one request: libcurl 7.88 fails further requests on a prior-knowledge connection.
    case http2PriorKnowledge

    /// `CURLOPT_HTTP_VERSION`: CURL_HTTP_VERSION_2TLS, _1_1, _2_PRIOR_KNOWLEDGE.
    var curlValue: Int {
        switch self {
        case .automatic: return 4
        case .http1_1: return 2
        case .http2PriorKnowledge: return 5
        }
    }
}
