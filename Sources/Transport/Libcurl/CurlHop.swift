import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one hop of a transfer (one request and its response, on one easy handle) has learnt:
/// made fresh for each hop, so that nothing of a redirect's, a Basic retry's or an earlier
/// attempt's connection (its proxy failure, its certificate request, its TLS) is taken for the
/// next one's.
struct CurlHop {
    /// The proxy the hop goes through, if any.
    let proxy: Proxy?
    /// The host the server's certificate must name: the host of the URL libcurl requests, which
    /// for a Unix domain socket (`https+unix://`) is `localhost`, not the socket's path.
    let serverName: String?
    /// When the hop started (for the total timeout libcurl was given, `totalMilliseconds`).
    let start: DispatchTime
    let fetchStart: Date
    let totalMilliseconds: Int
    /// TLS handshakes the hop began: through an `.https` proxy the first is the proxy's
    /// (libcurl runs the SSL_CTX callback for it too), which libcurl verifies with the proxy's
    /// anchors; the manager's policy is for the origin's.
    var handshakes = 0
    /// The policy's verdict on the origin's chain, once the handshake presented it.
    var evaluation: TrustEvaluation?
    /// Whether the hop's origin is https: its responses are taken only on a connection the
    /// manager's policy trusted (`mayReceive`).
    var requiresTrust = false
    /// A response arrived on a connection no evaluation of the policy had trusted, and was refused.
    var untrustedConnection = false
    /// What failed at the proxy, if anything.
    var proxyFailure: ProxyError?
    /// A server asked for a client certificate while the transfer had none to present.
    var certificateRequested = false
    /// Why the hop's response head was refused, if it was.
    var framingFault: ResponseFramingError?
    /// The task's limit the response exceeded, which ends the task (no retry, no continuation).
    var exceededLimit: ResponseLimits.Limit?
    /// When the request body was sent whole, and the connection's TLS.
    var requestEnd: Date?
    var tls: (version: String, cipher: String)?
    /// The header lines of the head being read.
    var headerLines: [String] = []
    /// Whether the request body ends with trailer fields.
    var sendsTrailers = false
    /// The trailer lines after the final response's body, and their bytes.
    var trailerLines: [String] = []
    var trailerBytes = 0
    /// Whether any byte of a response arrived.
    var receivedResponseBytes = false
    /// The hop's final response, and its body bytes received (raw, as libcurl's last progress
    /// call counted them, which may lag behind) and delivered (decoded).
    var response: HTTPURLResponse?
    var receivedBodyBytes: Int64 = 0
    /// Where the final response's framing is, when the hop watches for its end (a hop sending
    /// a body stream, whose upload libcurl may keep paused after the response ended).
    var responseEnd: ResponseEnd?
    var decodedBodyBytes: Int64 = 0
    /// The request body's length (-1 when unknown).
    var uploadLength: Int64 = -1

    /// A hop started at `start` (on the transport's clock).
    init(proxy: Proxy?, serverName: String?, totalMilliseconds: Int, start: DispatchTime) {
        self.proxy = proxy
        self.serverName = serverName
        self.totalMilliseconds = totalMilliseconds
        self.start = start
        fetchStart = Date()
    }

    /// Whether a response may be taken on the hop's connection: over https only when the
    /// policy's evaluation in the connection's handshake trusted the chain (`connectionTrusted`,
    /// the mark the verification left on the connection, which a reused connection keeps).
    /// Defence in depth: a libcurl that skipped the TLS hook, or a connection that bypassed it,
    /// delivers nothing.
    func mayReceive(connectionTrusted: Bool) -> Bool {
        !requiresTrust || connectionTrusted
    }
}
