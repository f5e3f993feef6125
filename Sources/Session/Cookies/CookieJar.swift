import AFLocking
import Foundation

/// A manager's cookies, in memory: each manager has its own jar (give managers the same jar to
/// share cookies), and nothing is written to disk. Replaces the configuration's
/// `httpCookieStorage`, which on Linux is either the process-wide `.shared` store, saved in
/// clear to `~/.local/share/<executable's directory>/.cookies.shared` after every change and
/// read by every program whose executable sits in a directory of that name, or a named one
/// saved likewise. The configuration's `httpShouldSetCookies` and `httpCookieAcceptPolicy`
/// still apply. The rules, as browsers and curl keep them:
/// - a `Secure` cookie is sent only over https, and set only by an https response; a plain
///   http response cannot replace (or shadow) a `Secure` cookie of the same name (RFC 6265bis,
///   5.7);
/// - a `Domain` that is a public suffix is refused (`PublicSuffix`), and one that does not
///   cover the responding host;
/// - at most `Limits.perDomain` cookies a domain and `Limits.total` in all, the oldest evicted
///   first; a cookie over `Limits.cookieBytes` is refused; the `Cookie` header stops before
///   `Limits.headerBytes`.
/// Thread safety: a `Locked` holds the cookies. Beyond AFNetworking.
public final class CookieJar: ResponseCookieStore, @unchecked Sendable {
    // @unchecked: every stored property is a `let`; the cookies are in a `Locked`.

    /// The jar's limits.
    public struct Limits: Sendable, Hashable {
        /// Cookies kept for one domain. Default 50 (RFC 6265's minimum; curl and browsers keep
        /// 50 to 180).
        public var perDomain = 50
        /// Cookies kept in all. Default 3,000 (RFC 6265's minimum).
        public var total = 3_000
        /// The longest name and value together. Default 4,096 bytes.
        public var cookieBytes = 4_096
        /// The longest `Cookie` header sent. Default 8,190 bytes (curl's).
        public var headerBytes = 8_190

        /// The default limits.
        public init() {}
    }

    private struct Stored {
        var cookie: Cookie
        let order: UInt64
    }

    private struct State {
        var cookies: [Stored] = []
        var next: UInt64 = 0
    }

    /// The limits the jar keeps.
    public let limits: Limits
    private let state = Locked(State())

    /// An empty jar with `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Where the public suffix rule comes from: libpsl's list, or the fallback refusing
    /// single-label domains.
    public static var publicSuffixSource: String { PublicSuffix.source }

    /// Every cookie kept (expired ones dropped), oldest first.
    public var cookies: [Cookie] {
        let now = Date()
        return state.withLock { state in
            state.cookies.removeAll { $0.cookie.isExpired(at: now) }
            return state.cookies.map(\.cookie)
        }
    }

    /// Stores the cookies that the `Set-Cookie` values of a response from `url` set, by the
    /// jar's rules; a cookie that has expired removes the one it names.
    public func store(setCookies values: [String], from url: URL) {
        guard !values.isEmpty, let host = url.host.map({ CookieSyntax.withoutTrailingDot($0.lowercased()) }) else { return }
        let now = Date()
        let isSecureResponse = url.scheme?.lowercased() == "https"
        for value in values {
            guard let cookie = Cookie(setCookie: value, from: url, now: now),
                  cookie.name.utf8.count + cookie.value.utf8.count <= limits.cookieBytes,
                  !cookie.isSecure || isSecureResponse,
                  cookie.isHostOnly || PublicSuffix.allows(domain: cookie.domain, from: host) else { continue }
            state.withLock { state in store(cookie, isSecureResponse: isSecureResponse, now: now, in: &state) }
        }
    }

    private func store(_ cookie: Cookie, isSecureResponse: Bool, now: Date, in state: inout State) {
        let shadowsSecure = { (stored: Stored) in
            stored.cookie.isSecure && Self.same(stored.cookie.name, cookie.name)
                && (Cookie.domain(stored.cookie.domain, covers: cookie.domain) || Cookie.domain(cookie.domain, covers: stored.cookie.domain))
                && Cookie.path(stored.cookie.path, covers: cookie.path)
        }
        if !isSecureResponse, state.cookies.contains(where: shadowsSecure) { return }
        let same = { (stored: Stored) in
            Self.same(stored.cookie.name, cookie.name) && Self.same(stored.cookie.domain, cookie.domain) && Self.same(stored.cookie.path, cookie.path)
        }
        let previous = state.cookies.firstIndex(where: same)
        let order = previous.map { state.cookies[$0].order } ?? state.next
        if let previous { state.cookies.remove(at: previous) }
        guard !cookie.isExpired(at: now) else { return }
        state.next += 1
        state.cookies.append(Stored(cookie: cookie, order: order))
        state.cookies.sort { $0.order < $1.order }
        if state.cookies.filter({ Self.same($0.cookie.domain, cookie.domain) }).count > limits.perDomain,
           let oldest = state.cookies.firstIndex(where: { Self.same($0.cookie.domain, cookie.domain) }) {
            state.cookies.remove(at: oldest)
        }
        if state.cookies.count > limits.total { state.cookies.removeFirst() }
    }

    /// Whether two names, domains or paths are the same bytes (`String`'s `==` calls a
    /// precomposed `é` and `e` with U+0301 equal; a server does not).
    private static func same(_ first: String, _ second: String) -> Bool {
        first.utf8.elementsEqual(second.utf8)
    }

    /// The cookies that go with a request to `url`: longer paths first, then older first.
    public func cookies(for url: URL) -> [Cookie] {
        let now = Date()
        return state.withLock { state in
            if state.cookies.isEmpty { return [] }
            state.cookies.removeAll { $0.cookie.isExpired(at: now) }
            guard let target = Cookie.RequestTarget(url) else { return [] }
            return state.cookies.filter { $0.cookie.matches(target) }
                .sorted { ($0.cookie.path.utf8.count, $1.order) > ($1.cookie.path.utf8.count, $0.order) }.map(\.cookie)
        }
    }

    /// The `Cookie` header for a request to `url`, within `Limits.headerBytes`; `nil` for none.
    public func headerValue(for url: URL) -> String? {
        var header = ""
        for cookie in cookies(for: url) {
            let pair = cookie.name + "=" + cookie.value
            let length = header.utf8.count + (header.isEmpty ? 0 : 2) + pair.utf8.count
            guard length <= limits.headerBytes else { break }
            header += (header.isEmpty ? "" : "; ") + pair
        }
        return header.isEmpty ? nil : header
    }

    /// Removes every cookie.
    public func removeAll() {
        state.withLock { $0.cookies = [] }
    }

    /// The `Set-Cookie` values of a header that joined several with commas (URLSession's own
    /// protocol does): split where a comma is followed by a new `name=` rather than the rest of
    /// an `Expires` date. Pure; on bytes, so that a comma followed by a combining mark is found.
    static func splitJoinedSetCookie(_ joined: String) -> [String] {
        let bytes = Substring(joined).utf8
        var values: [String] = []
        var start = bytes.startIndex
        var rest = bytes[...]
        while let comma = rest.firstIndex(of: UInt8(ascii: ",")) {
            let after = bytes[bytes.index(after: comma)...]
            let nextField = after.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: ",") }
            if nextField.contains(UInt8(ascii: "=")) {
                values.append(CookieSyntax.text(CookieSyntax.trimmed(bytes[start..<comma])))
                start = after.startIndex
            }
            rest = after
        }
        let last = CookieSyntax.trimmed(bytes[start...])
        if !last.isEmpty { values.append(CookieSyntax.text(last)) }
        return values.filter { !$0.isEmpty }
    }
}
