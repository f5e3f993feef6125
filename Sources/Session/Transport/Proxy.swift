import Foundation

/// A proxy the libcurl transport sends requests through (`URLSessionManager.proxy`). Beyond
/// AFNetworking, which leaves proxies to the system on Apple platforms.
public struct Proxy: Sendable, Hashable {
    /// How the transport talks to the proxy.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy: plain HTTP requests go to it whole, HTTPS requests through a
        /// `CONNECT` tunnel, inside which the TLS handshake (and the manager's
        /// `SecurityPolicy`) is with the origin.
        case http
        /// A SOCKS5 proxy that also resolves the host names (curl's `socks5h`).
        case socks5
    }

    /// How the transport talks to the proxy. Default `.http`.
    public var kind: Kind
    /// The proxy's host name or IP address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// Basic credentials sent to the proxy only (never to the origin), if any.
    public var username: String?
    /// The password for `username`.
    public var password: String?

    /// A proxy at `host`:`port`.
    public init(_ kind: Kind = .http, host: String, port: Int, username: String? = nil, password: String? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// A proxy written as in the proxy environment variables: `[http://][user:password@]host[:port]`
    /// or `socks5h://...` (also `socks5://`, resolved by the proxy all the same); the port
    /// defaults to 1080, as curl's does. `nil` for other schemes (an HTTPS connection to the
    /// proxy itself is not supported) and for text without a host.
    public init?(url text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, let components = URLComponents(string: trimmed.contains("://") ? trimmed : "http://" + trimmed),
              let host = components.host, !host.isEmpty else { return nil }
        switch components.scheme?.lowercased() {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        default: return nil
        }
        self.host = host
        port = components.port ?? 1080
        username = components.user.map { $0.removingPercentEncoding ?? $0 }
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
    }

    /// The proxy as libcurl's `CURLOPT_PROXY` takes it, without credentials.
    var curlURL: String {
        let scheme = kind == .http ? "http" : "socks5h"
        let host = self.host.contains(":") && !self.host.hasPrefix("[") ? "[\(self.host)]" : self.host
        return "\(scheme)://\(host):\(port)"
    }

    /// `host:port`, for messages (never the credentials).
    public var address: String { "\(host):\(port)" }
}

extension Proxy: CustomStringConvertible {
    /// The kind and address; a password is never shown.
    public var description: String {
        "\(kind) proxy \(address)" + (username.map { " as \($0)" } ?? "")
    }
}
