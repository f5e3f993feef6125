import Foundation

/// A failure that was the proxy's, not the origin's: the underlying error
/// (`NSUnderlyingErrorKey`) of the `URLError` the task fails with.
public enum ProxyError: Error, Sendable, Equatable {
    /// The proxy could not be resolved or connected to (`URLError.cannotFindHost` or
    /// `.cannotConnectToHost`).
    case unreachable(proxy: String)
    /// The proxy answered 407: it needs credentials, or refused the ones given
    /// (`URLError.userAuthenticationRequired`).
    case authenticationRequired(proxy: String)
    /// The proxy refused to open a tunnel to the origin, with `status` (e.g. 403, or 502 when it
    /// could not reach the origin) (`URLError.cannotConnectToHost`).
    case tunnelRefused(proxy: String, status: Int)
    /// The proxy's own handshake failed, such as a SOCKS5 proxy refusing the credentials or an
    /// HTTPS proxy whose certificate is not trusted; `reason` is libcurl's message
    /// (`URLError.cannotConnectToHost`).
    case handshakeFailed(proxy: String, reason: String)

    /// The proxy's failure, if the transfer through `proxy` failed with libcurl's `curlCode` and
    /// `message` after a `CONNECT` answered with `connectStatus` (0 when none was sent or
    /// answered); `originEvaluated` says whether the origin's certificate was evaluated.
    static func classify(curlCode: Int32, message: String, connectStatus: Int, proxy: Proxy, originEvaluated: Bool) -> ProxyError? {
        if connectStatus == 407 { return .authenticationRequired(proxy: proxy.address) }
        if connectStatus >= 300 { return .tunnelRefused(proxy: proxy.address, status: connectStatus) }
        if curlCode == 97 { return .handshakeFailed(proxy: proxy.address, reason: message) } // CURLE_PROXY
        // An `.https` proxy's own TLS handshake, which came first and which the policy does not
        // evaluate (`originEvaluated` is false until the origin's handshake).
        if proxy.kind == .https, !originEvaluated, [35, 60].contains(curlCode) { return .handshakeFailed(proxy: proxy.address, reason: message) }
        // CURLE_COULDNT_RESOLVE_PROXY, and CURLE_COULDNT_CONNECT: with a proxy, the only
        // connection libcurl opens is to the proxy.
        if curlCode == 5 || curlCode == 7 { return .unreachable(proxy: proxy.address) }
        return nil
    }

    /// The URLError code a task fails with.
    var urlErrorCode: URLError.Code {
        switch self {
        case .unreachable: return .cannotConnectToHost
        case .authenticationRequired: return .userAuthenticationRequired
        case .tunnelRefused, .handshakeFailed: return .cannotConnectToHost
        }
    }
}

extension ProxyError: LocalizedError {
    /// A one-line description naming the proxy.
    public var errorDescription: String? {
        switch self {
        case .unreachable(let proxy): return "The proxy \(proxy) cannot be reached."
        case .authenticationRequired(let proxy): return "The proxy \(proxy) requires authentication (407)."
        case .tunnelRefused(let proxy, let status): return "The proxy \(proxy) refused the tunnel to the server (\(status))."
        case .handshakeFailed(let proxy, let reason): return "The proxy \(proxy) refused the connection: \(reason)."
        }
    }
}
