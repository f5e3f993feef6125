import AFSecurity
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
        /// An HTTP proxy reached over TLS (curl's `https://` proxies): its certificate is
        /// checked against `anchorCertificates` (the system's trust store when empty) and its
        /// host name; requests then go as through `.http`, the origin's TLS inside the tunnel.
        case https
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
    /// The trust anchors for an `.https` proxy's certificate; empty, the default, for the
    /// system's trust store. The manager's `SecurityPolicy` is for origins only.
    public var anchorCertificates: [Certificate] = []

    /// A proxy at `host`:`port`.
    public init(_ kind: Kind = .http, host: String, port: Int, username: String? = nil, password: String? = nil,
                anchorCertificates: [Certificate] = []) {
        self.kind = kind
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.anchorCertificates = anchorCertificates
    }

    /// A proxy written as in the proxy environment variables: `[http://][user:password@]host[:port]`,
    /// `https://...` or `socks5h://...` (also `socks5://`, resolved by the proxy all the same);
    /// the port defaults to 1080, as curl's does (443 for `https`). `nil` for other schemes and
    /// for text without a host.
    public init?(url text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, let components = URLComponents(string: trimmed.contains("://") ? trimmed : "http://" + trimmed),
              let host = components.host, !host.isEmpty else { return nil }
        switch components.scheme?.lowercased() {
        case "http": kind = .http
        case "https": kind = .https
        case "socks5", "socks5h": kind = .socks5
        default: return nil
        }
        self.host = host
        port = components.port ?? (kind == .https ? 443 : 1080)
        username = components.user.map { $0.removingPercentEncoding ?? $0 }
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
    }

    /// The proxy as libcurl's `CURLOPT_PROXY` takes it, without credentials.
    var curlURL: String {
        let scheme = switch kind {
        case .http: "http"
        case .https: "https"
        case .socks5: "socks5h"
        }
        let host = self.host.contains(":") && !self.host.hasPrefix("[") ? "[\(self.host)]" : self.host
        return "\(scheme)://\(host):\(port)"
    }

    /// `anchorCertificates` as PEM, as libcurl's `CURLOPT_PROXY_CAINFO_BLOB` takes them.
    var anchorsPEM: Data {
        Data(anchorCertificates.map { certificate in
            let lines = certificate.derEncoded.base64EncodedString(options: .lineLength64Characters)
            return "-----BEGIN CERTIFICATE-----\n\(lines)\n-----END CERTIFICATE-----\n"
        }.joined().utf8)
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
