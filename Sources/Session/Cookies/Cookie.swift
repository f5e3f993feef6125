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
    /// The host (a host-only cookie) or the domain it is sent to, lower-case, without a leading
    /// dot or one trailing dot.
    public var domain: String
    /// Whether the cookie goes to `domain` exactly (no `Domain` attribute) rather than to its subdomains too.
    public var isHostOnly: Bool
    /// The path it is sent to and below: its `Path` attribute, or the default path of the URL
    /// that set it (RFC 6265 5.1.4).
    public var path: String
    /// When it expires; `nil` for a session cookie (kept as long as the jar).
    public var expires: Date?
    /// Sent only over https, and set only by an https response.
    public var isSecure: Bool
    /// `HttpOnly`: kept (it concerns scripts in browsers; every request of this client sends it).
    public var isHTTPOnly: Bool
    /// `SameSite` as the server wrote it (`Strict`, `Lax`, `None`), kept for the caller.
    public var sameSite: String?

    /// The longest a cookie is kept: 400 days (RFC 6265bis 5.6.1 and 5.6.2), for `Max-Age` and
    /// `Expires` alike, as browsers cap them.
    static let maximumAge = 400 * 86_400

    /// The cookie `setCookie` sets for a response from `url`, received at `now`; `nil` when the
    /// value is malformed (no `=`, an empty name), holds a control character other than HTAB
    /// (RFC 6265bis 5.6), or its `Domain` does not cover the host. Read on bytes (RFC 6265
    /// 5.2); a host is the same with or without one trailing dot.
    public init?(setCookie: String, from url: URL, now: Date = Date()) {
        guard let parts = CookieSyntax.parts(of: setCookie), let pair = parts.first, let rawValue = pair.value,
              let rawHost = url.host?.lowercased(), !rawHost.isEmpty else { return nil }
        let host = CookieSyntax.withoutTrailingDot(rawHost)
        name = CookieSyntax.text(pair.name)
        value = CookieSyntax.text(rawValue)
        guard !name.isEmpty else { return nil }
        domain = host
        isHostOnly = true
        path = CookieSyntax.defaultPath(of: url)
        isSecure = false
        isHTTPOnly = false
        var maxAge: Int?
        for (key, raw) in parts.dropFirst() {
            let raw = raw ?? Substring("").utf8
            if CookieSyntax.isName(key, "expires") {
                expires = Self.date(CookieSyntax.text(raw)) ?? expires
            } else if CookieSyntax.isName(key, "max-age") {
                maxAge = CookieSyntax.maxAge(raw, limit: Self.maximumAge) ?? maxAge
            } else if CookieSyntax.isName(key, "domain") {
                let written = raw.first == UInt8(ascii: ".") ? raw.dropFirst() : raw
                guard !written.isEmpty else { continue }
                let named = CookieSyntax.withoutTrailingDot(CookieSyntax.text(written).lowercased())
                guard !named.isEmpty, named.utf8.last != UInt8(ascii: "."), Self.domain(named, covers: host) else { return nil }
                domain = named
                isHostOnly = named.utf8.elementsEqual(host.utf8)
            } else if CookieSyntax.isName(key, "path") {
                if raw.first == UInt8(ascii: "/") { path = CookieSyntax.text(raw) }
            } else if CookieSyntax.isName(key, "secure") {
                isSecure = true
            } else if CookieSyntax.isName(key, "httponly") {
                isHTTPOnly = true
            } else if CookieSyntax.isName(key, "samesite") {
                sameSite = CookieSyntax.text(raw)
            }
        }
        let latest = now.addingTimeInterval(TimeInterval(Self.maximumAge))
        if let maxAge { expires = maxAge <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(maxAge)) }
        if let expires, expires > latest { self.expires = latest }
    }

    /// Whether the cookie has expired at `now`.
    public func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// Whether the cookie goes with a request to `url`: its host (with or without one trailing
    /// dot), its path as sent and, for a `Secure` cookie, https.
    public func matches(_ url: URL) -> Bool {
        RequestTarget(url).map(matches) ?? false
    }

    /// Whether the cookie goes with a request to `target`.
    func matches(_ target: RequestTarget) -> Bool {
        if isSecure, !target.isSecure { return false }
        guard isHostOnly ? target.host.utf8.elementsEqual(domain.utf8) : Self.domain(domain, covers: target.host) else { return false }
        return CookieSyntax.path(path, covers: target.path)
    }

    /// What of a request's URL decides which cookies go with it.
    struct RequestTarget {
        /// The host, lower-case, without one trailing dot.
        let host: String
        /// The path as sent (percent-encoded), `/` when empty.
        let path: String
        /// Whether the scheme is https.
        let isSecure: Bool

        init?(_ url: URL) {
            guard let host = url.host?.lowercased() else { return nil }
            self.host = CookieSyntax.withoutTrailingDot(host)
            path = CookieSyntax.requestPath(of: url)
            isSecure = url.scheme?.lowercased() == "https"
        }
    }

    /// RFC 6265 domain-match: `host` is `domain` or ends with "." and `domain` (never for an
    /// IP address), compared as bytes.
    static func domain(_ domain: String, covers host: String) -> Bool {
        host.utf8.elementsEqual(domain.utf8) || (CookieSyntax.domain(domain, covers: host) && !isAddress(host))
    }

    /// RFC 6265 path-match, on bytes.
    static func path(_ cookiePath: String, covers requestPath: String) -> Bool {
        CookieSyntax.path(cookiePath, covers: requestPath)
    }

    /// An `Expires` date in HTTP's forms, or one of the looser ones cookies often use (read by
    /// a `DateFormatter`, which also takes a missing leading zero).
    private static func date(_ value: String) -> Date? {
        if let date = HTTPDate.parse(value) { return date }
        for format in looseDateFormats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: value) { return date }
        }
        return nil
    }

    private static let looseDateFormats = [
        "EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy", "EEE, dd-MMM-yyyy HH:mm:ss 'GMT'",
        "EEE, dd-MMM-yy HH:mm:ss 'GMT'",
    ]
}

/// Whether `host` is an IPv4 or IPv6 literal (brackets allowed), which no domain covers.
private func isAddress(_ host: String) -> Bool {
    let bytes = host.utf8
    let isBracketed = bytes.first == UInt8(ascii: "[") && bytes.last == UInt8(ascii: "]") && bytes.count >= 2
    let literal = isBracketed ? String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self) : host
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, literal, &v4) == 1 || inet_pton(AF_INET6, literal, &v6) == 1
}
