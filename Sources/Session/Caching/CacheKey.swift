import AFSecurity
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the cache tells a request's stored responses apart by, taken from the request as it
/// goes out (RFC 9111, 2 and 4.1): its target (the URL without its fragment, with the
/// authority of its own `Host` field when it carries one: RFC 9110, 7.2), the Unix socket it
/// goes through, and the client certificate it presents. The target names the entry and its
/// file; a stored response answers only a request of the same socket and certificate, as it
/// answers only one with the same values of the fields its `Vary` names. Pure.
struct CacheKey: Hashable, Sendable {
    /// The request's URL without its fragment.
    var url: String
    /// The request's `Host` field, lower-cased, when it names another authority than the URL.
    var host: String?
    /// The Unix socket the request goes through; `nil` over TCP.
    var socketPath: String?
    /// The SHA-256 of the public key of the client certificate the request presents (mutual
    /// TLS), base64; `nil` for none.
    var identity: String?

    /// The key of `request`, sent through `socketPath` with `identity`; `nil` without a URL.
    init?(_ request: URLRequest, socketPath: String?, identity: ClientIdentity?) {
        guard let url = request.url else { return nil }
        self.init(url: url, host: request.value(forHTTPHeaderField: "Host"), socketPath: socketPath,
                  identity: identity.map(Self.fingerprint))
    }

    /// The key of a request to `url` whose `Host` field is `host`.
    init(url: URL, host: String?, socketPath: String?, identity: String?) {
        self.url = Self.withoutFragment(url.absoluteString)
        let named = host.map { HTTPToken.asciiLowercased($0.trimmingCharacters(in: .whitespaces)) }
        self.host = named.flatMap { $0.isEmpty || $0 == Self.authority(of: url) ? nil : $0 }
        self.socketPath = socketPath
        self.identity = identity
    }

    /// The target URI the request names: the URL, its authority replaced by the `Host` field's
    /// when they differ. Responses are stored and invalidated under it.
    var target: String {
        guard let host, let components = URLComponents(string: url) else { return url }
        var target = (components.scheme?.lowercased() ?? "") + "://" + host + components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        return target
    }

    /// The target of a request to `url` without a `Host` field of its own.
    static func target(of url: URL) -> String {
        withoutFragment(url.absoluteString)
    }

    /// The name a client certificate is known by in a key: its leaf's public key pin.
    static func fingerprint(_ identity: ClientIdentity) -> String {
        identity.certificates.first?.publicKeyPinSHA256 ?? ""
    }

    /// `url`'s authority as a `Host` field names it: the host, lower-cased, and a port other
    /// than the scheme's.
    private static func authority(of url: URL) -> String {
        let host = (url.host ?? "").lowercased()
        guard let port = url.port else { return host }
        let scheme = url.scheme?.lowercased()
        return (scheme == "http" && port == 80) || (scheme == "https" && port == 443) ? host : "\(host):\(port)"
    }

    private static func withoutFragment(_ text: String) -> String {
        text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }
}
