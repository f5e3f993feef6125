import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a redirect may do, one decision for both transports: whether it may go where the
/// `Location` points, and which headers go with it (the libcurl transport's `FollowUpRules`
/// sets the method and body of the next request as URLSession does).
/// Pure: tested as a table without a server.
///
/// The origin is the scheme, host and port (RFC 6454): `https://a` to `http://a` is a change of
/// origin. On any change the next request carries no `Authorization`, `Cookie`,
/// `Proxy-Authorization`, `Origin`, nor any header the manager calls sensitive (its
/// `Redaction`), unless the caller trusts redirects for the task (curl's
/// `--location-trusted`); cookies of the store are added for the new URL afterwards by its own
/// rules. A redirect from TCP into a Unix domain socket, or from one socket to another, is
/// refused: a remote server must not reach a local daemon. AsyncHTTPClient's `RedirectState`
/// and curl (`CURLOPT_UNRESTRICTED_AUTH`, CVE-2018-1000007, CVE-2022-27774) behave alike.
enum RedirectRule {
    /// The headers that never cross an origin, beside the manager's sensitive ones (lower-case).
    static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization", "origin"]

    /// Why a redirect was refused.
    enum Refusal: Error, Equatable {
        /// From TCP into a Unix domain socket, or from one socket to another.
        case intoUnixSocket
    }

    /// The scheme, lower-cased host and port of `url` (the scheme's default when none is
    /// written), or `nil` without a scheme.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased() else { return nil }
        let port = url.port ?? (scheme.hasPrefix("https") ? 443 : scheme.hasPrefix("http") ? 80 : -1)
        return "\(scheme)://\((url.host ?? "").lowercased()):\(port)"
    }

    /// Whether `url` names a Unix domain socket (`http+unix://`, `https+unix://`).
    static func isUnixSocket(_ url: URL) -> Bool {
        url.scheme?.lowercased().hasSuffix("+unix") ?? false
    }

    /// The request to follow a redirect from `previous` with, as `proposed` by the transport
    /// (its URL the `Location`, its headers the previous request's), or why it is refused.
    static func follow(
        _ proposed: URLRequest, from previous: URL, redaction: Redaction, trusted: Bool
    ) -> Result<URLRequest, Refusal> {
        guard let target = proposed.url else { return .success(proposed) }
        if isUnixSocket(target), !isUnixSocket(previous) || origin(of: target) != origin(of: previous) {
            return .failure(.intoUnixSocket)
        }
        guard !trusted, origin(of: target) != origin(of: previous) else { return .success(proposed) }
        var next = proposed
        for name in (proposed.allHTTPHeaderFields ?? [:]).keys {
            let lowercased = name.lowercased()
            if credentialHeaders.contains(lowercased) || redaction.isSecret(header: name) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return .success(next)
    }
}
