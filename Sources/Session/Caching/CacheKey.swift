import AFSecurity
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the cache tells a request's stored responses apart by, taken from the request as it
/// goes out (RFC 9111, 2 and 4.1): the URL it connects to (without its fragment), the
/// authority of its own `Host` field when it names another (RFC 9110, 7.2), the Unix socket it
/// goes through, the client certificate it presents, and what its connection is checked and
/// routed by (`RouteFingerprint`: the security policy and proxy). A stored response answers
/// only a request with all of these the same, as it answers only one with the same values of
/// the fields its `Vary` names. Responses are grouped, kept on disk and invalidated by their
/// `target`: the target URI the server was asked for. Pure.
struct CacheKey: Hashable, Sendable {
    /// The request's URL without its fragment: where it connects.
    let url: String
    /// The request's `Host` field, lower-cased, when it names another authority than the URL.
    let host: String?
    /// The Unix socket the request goes through; `nil` over TCP.
    let socketPath: String?
    /// The SHA-256 of the public key of the client certificate the request presents (mutual
    /// TLS), base64; `nil` for none.
    let identity: String?
    /// What the request's connection is checked and routed by (`RouteFingerprint`); `nil` for
    /// the system's trust and the automatic proxy.
    let route: String?
    /// The target URI the request names (RFC 9110, 7.1): its scheme, the authority of its
    /// `Host` field or else its URL's (lower-cased, without the scheme's default port), its
    /// path and query. Responses are grouped, stored and invalidated under it. Made once with
    /// the key: a task reads it at its lookup, its store and its invalidations.
    let target: String

    /// The key of `request`, sent through `socketPath` with `identity` on a transport of
    /// `route`; `nil` when it has no URL, or a `Host` field that is not an authority (a host
    /// and a port: it would name another target than the one asked for).
    init?(_ request: URLRequest, socketPath: String?, identity: ClientIdentity?, route: String?) {
        guard let url = request.url else { return nil }
        let host = request.value(forHTTPHeaderField: "Host")
        if let host, !Self.isAuthority(host) { return nil }
        self.init(url: url, host: host, socketPath: socketPath, identity: identity.map(Self.fingerprint), route: route)
    }

    /// The key of a request to `url` whose `Host` field is `host` (an authority).
    init(url: URL, host: String?, socketPath: String? = nil, identity: String? = nil, route: String? = nil) {
        self.url = Self.withoutFragment(url.absoluteString)
        let named = host.map { HTTPToken.asciiLowercased($0.trimmingCharacters(in: .whitespaces)) }
        self.host = named.flatMap { $0.isEmpty || $0 == Self.authority(of: url) ? nil : $0 }
        self.socketPath = socketPath
        self.identity = identity
        self.route = route
        target = Self.target(of: url, host: self.host)
    }

    /// The target of a request to `url` whose `Host` field names `host` (`nil`: the URL's).
    private static func target(of url: URL, host: String?) -> String {
        let text = withoutFragment(url.absoluteString)
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else { return text }
        var target = scheme + "://" + (host ?? authority(of: url)) + components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        return target
    }

    /// The target of a request to `url` without a `Host` field of its own.
    static func target(of url: URL) -> String {
        target(of: url, host: nil)
    }

    /// The name a client certificate is known by in a key: its leaf's public key pin.
    static func fingerprint(_ identity: ClientIdentity) -> String {
        identity.certificates.first?.publicKeyPinSHA256 ?? ""
    }

    /// Whether `text` is an authority a `Host` field may name (RFC 9110, 7.2; RFC 3986, 3.2.2):
    /// a registered name (letters, digits, `-._~`, sub-delimiters and percent-encoded bytes) or
    /// a bracketed IP literal, and an optional port of digits; nothing that would end the
    /// authority (`/`, `?`, `#`, `@`), no space or control byte. Read as bytes.
    static func isAuthority(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while bytes.first == UInt8(ascii: " ") || bytes.first == UInt8(ascii: "\t") { bytes = bytes.dropFirst() }
        while bytes.last == UInt8(ascii: " ") || bytes.last == UInt8(ascii: "\t") { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { return false }
        var hostPart = bytes
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = bytes[bytes.index(after: bytes.startIndex)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return false }
            hostPart = bytes[...close]
            bytes = bytes[bytes.index(after: close)...]
        } else {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            hostPart = bytes[..<end]
            guard !hostPart.isEmpty, hostPart.allSatisfy(isRegisteredNameByte) else { return false }
            bytes = bytes[end...]
        }
        guard let colon = bytes.first else { return true }
        let port = bytes.dropFirst()
        return colon == UInt8(ascii: ":") && port.count <= 5 && port.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// Unreserved, sub-delimiter and `%` bytes (RFC 3986's reg-name).
    private static func isRegisteredNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || registeredNamePunctuation.contains(byte)
    }

    private static let registeredNamePunctuation = Set("-._~!$&'()*+,;=%".utf8)

    /// `url`'s authority as a `Host` field names it: the host, lower-cased (bracketed when an
    /// IPv6 literal), and a port other than the scheme's.
    private static func authority(of url: URL) -> String {
        var host = (url.host ?? "").lowercased()
        if host.contains(":"), !host.hasPrefix("[") { host = "[" + host + "]" }
        guard let port = url.port else { return host }
        let scheme = url.scheme?.lowercased()
        return (scheme == "http" && port == 80) || (scheme == "https" && port == 443) ? host : "\(host):\(port)"
    }

    static func withoutFragment(_ text: String) -> String {
        text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }
}
