import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One cookie as a `Set-Cookie` header set it (RFC 6265, section 5.2, with RFC 6265bis's
/// `SameSite`), a value kept by a `CookieJar`. Pure: parsed and matched without a server.
/// AFNetworking leaves cookies to `NSHTTPCookieStorage`; on Linux that store cannot be made
/// private to a manager and saves to disk, so the manager keeps its own.
public struct Cookie: Sendable, Hashable {
    /// The cookie's name, as the server wrote it.
    public var name: String
    /// The cookie's value, as the server wrote it (no quotes removed).
    public var value: String
    /// The host (a host-only cookie) or the domain it is sent to, lower-case, without a leading dot.
    public var domain: String
    /// Whether the cookie goes to `domain` exactly (no `Domain` attribute) rather than to its subdomains too.
    public var isHostOnly: Bool
    public var path: String
    /// When it expires; `nil` for a session cookie (kept as long as the jar).
    public var expires: Date?
    /// Sent only over https, and set only by an https response.
    public var isSecure: Bool
    /// `HttpOnly`: kept (it concerns scripts in browsers; every request of this client sends it).
    public var isHTTPOnly: Bool
    /// `SameSite` as the server wrote it (`Strict`, `Lax`, `None`), kept for the caller.
    public var sameSite: String?

    /// The cookie `setCookie` sets for a response from `url`, received at `now`; `nil` when the
    /// value is malformed (no `=`, an empty name) or its `Domain` does not cover the host.
    public init?(setCookie: String, from url: URL, now: Date = Date()) {
        let parts = setCookie.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "="),
              let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        domain = host
        isHostOnly = true
        path = Self.defaultPath(of: url)
        isSecure = false
        isHTTPOnly = false
        var maxAge: TimeInterval?
        for attribute in parts.dropFirst() {
            let (key, raw) = attribute.firstIndex(of: "=").map {
                (attribute[..<$0].trimmingCharacters(in: .whitespaces).lowercased(), attribute[attribute.index(after: $0)...].trimmingCharacters(in: .whitespaces))
            } ?? (attribute.trimmingCharacters(in: .whitespaces).lowercased(), "")
            switch key {
            case "expires": expires = Self.date(raw) ?? expires
            case "max-age":
                if let seconds = Int(raw) { maxAge = TimeInterval(max(min(seconds, 400 * 86_400), -1)) }
            case "domain":
                let named = (raw.hasPrefix(".") ? String(raw.dropFirst()) : raw).lowercased()
                guard !named.isEmpty else { continue }
                guard Self.domain(named, covers: host) else { return nil }
                domain = named
                isHostOnly = named == host
            case "path": if raw.hasPrefix("/") { path = raw }
            case "secure": isSecure = true
            case "httponly": isHTTPOnly = true
            case "samesite": sameSite = raw
            default: break
            }
        }
        if let maxAge { expires = maxAge <= 0 ? .distantPast : now.addingTimeInterval(maxAge) }
    }

    /// Whether the cookie has expired at `now`.
    public func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// Whether the cookie goes with a request to `url`: its host, path and, for a `Secure`
    /// cookie, https.
    public func matches(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        if isSecure, url.scheme?.lowercased() != "https" { return false }
        guard isHostOnly ? host == domain : Self.domain(domain, covers: host) else { return false }
        return Self.path(path, covers: url.path.isEmpty ? "/" : url.path)
    }

    /// RFC 6265 domain-match: `host` is `domain` or ends with "." and `domain` (never for an IP address).
    static func domain(_ domain: String, covers host: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !isAddress(host))
    }

    /// RFC 6265 path-match.
    static func path(_ cookiePath: String, covers requestPath: String) -> Bool {
        requestPath == cookiePath || (requestPath.hasPrefix(cookiePath) && (cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")))
    }

    /// RFC 6265 default-path: the URL's path up to, not including, its last `/`.
    private static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// An `Expires` date in HTTP's forms or the dashed one cookies often use.
    private static func date(_ value: String) -> Date? {
        RetryAfter.httpDate(value) ?? RetryAfter.httpDate(value, formats: ["EEE, dd-MMM-yyyy HH:mm:ss 'GMT'", "EEE, dd-MMM-yy HH:mm:ss 'GMT'"])
    }
}

/// Whether `host` is an IPv4 or IPv6 literal (brackets allowed), which no domain covers.
private func isAddress(_ host: String) -> Bool {
    let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, literal, &v4) == 1 || inet_pton(AF_INET6, literal, &v6) == 1
}
