import Foundation

/// The wire syntax of cookies (RFC 6265 5.1-5.2, RFC 6265bis 5.6), read on UTF-8 bytes: a
/// delimiter followed by a combining mark (`=` U+0301) is one `Character` that a search of
/// characters would miss, so nothing here compares or splits characters. Pure.
enum CookieSyntax {
    /// A `Set-Cookie` value cut at its `;` and each part at its first `=`, each side trimmed of
    /// spaces and tabs; `nil` when the value holds a control character other than HTAB (RFC
    /// 6265bis 5.6: the whole value is ignored; curl since CVE-2022-35252).
    static func parts(of setCookie: String) -> [(name: Substring.UTF8View, value: Substring.UTF8View?)]? {
        let bytes = Substring(setCookie).utf8
        guard !bytes.contains(where: isControl) else { return nil }
        return bytes.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { part in
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else { return (trimmed(part), nil) }
            return (trimmed(part[..<equals]), trimmed(part[part.index(after: equals)...]))
        }
    }

    /// A control character of RFC 6265bis 5.6: U+0000-U+0008, U+000A-U+001F, U+007F.
    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// `bytes` without leading and trailing spaces and tabs (RFC 6265's WSP; no other space).
    static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
    }

    /// `bytes` as text (the value came from a `String`, so they are valid UTF-8).
    static func text(_ bytes: Substring.UTF8View) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `bytes` spell `name` in any ASCII case (`name` lower-case ASCII).
    static func isName(_ bytes: Substring.UTF8View, _ name: StaticString) -> Bool {
        name.withUTF8Buffer { expected in
            bytes.count == expected.count && zip(bytes, expected).allSatisfy { lowercased($0) == $1 }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte
    }

    /// The seconds of a `Max-Age` (RFC 6265 5.2.2): `nil` unless it is an optional `-` and
    /// digits (a leading `+`, a space inside, a non-ASCII digit: the attribute is ignored); a
    /// negative value of any length is 0 (expire now); a positive one is at most `limit`, the
    /// digits past it read without arithmetic.
    static func maxAge(_ bytes: Substring.UTF8View, limit: Int) -> Int? {
        let isNegative = bytes.first == UInt8(ascii: "-")
        let digits = isNegative ? bytes.dropFirst() : bytes[...]
        guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        if isNegative { return 0 }
        var seconds = 0
        for digit in digits {
            seconds = seconds * 10 + Int(digit - UInt8(ascii: "0"))
            if seconds >= limit { return limit }
        }
        return seconds
    }

    /// `host` without one trailing dot: `example.com.` and `example.com` are one host for
    /// cookies, and a public suffix is checked without it (curl's `strip_trailing_dot`;
    /// libpsl does not know `co.uk.`).
    static func withoutTrailingDot(_ host: String) -> String {
        host.utf8.last == UInt8(ascii: ".") ? String(decoding: host.utf8.dropLast(), as: UTF8.self) : host
    }

    /// RFC 6265 domain-match on bytes: `host` is `domain`, or ends with "." and `domain`.
    static func domain(_ domain: String, covers host: String) -> Bool {
        let (host, domain) = (host.utf8, domain.utf8)
        if host.elementsEqual(domain) { return true }
        guard host.count > domain.count, host.reversed().starts(with: domain.reversed()) else { return false }
        return host.dropLast(domain.count).last == UInt8(ascii: ".")
    }

    /// RFC 6265 path-match on bytes: `requestPath` is `cookiePath`, or starts with it where
    /// `cookiePath` ends with `/` or the next byte of `requestPath` is `/`.
    static func path(_ cookiePath: String, covers requestPath: String) -> Bool {
        let (request, cookie) = (requestPath.utf8, cookiePath.utf8)
        guard request.starts(with: cookie) else { return false }
        return request.count == cookie.count || cookie.last == UInt8(ascii: "/") || request.dropFirst(cookie.count).first == UInt8(ascii: "/")
    }

    /// The path of `url` as sent (percent-encoded, its trailing `/` kept), `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// RFC 6265 default-path: the request's path up to, not including, its last `/`; `/`
    /// when that leaves nothing or the path does not start with `/`.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url).utf8
        guard path.first == UInt8(ascii: "/"), let last = path.lastIndex(of: UInt8(ascii: "/")), last != path.startIndex else { return "/" }
        return String(decoding: path[..<last], as: UTF8.self)
    }
}
