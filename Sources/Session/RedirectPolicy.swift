import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a task's redirects may do, one decision for both transports, as the task's manager had
/// its rules when the task was made (a value in its `TaskSettings`): how many are followed,
/// whether one may go where its `Location` points, which headers go with it, and whether a
/// request body can go too (the libcurl transport's `FollowUpRules` sets the method and body
/// of the next request as URLSession does). Pure: tested as a table without a server.
///
/// The origin is the scheme, host and port (RFC 6454): `https://a` to `http://a` is a change of
/// origin. On any change the next request carries no `Authorization`, `Cookie`,
/// `Proxy-Authorization`, `Origin`, nor any header the manager calls sensitive (its
/// `Redaction`), unless the caller trusts redirects for the task (curl's
/// `--location-trusted`); cookies of the store are added for the new URL afterwards by its own
/// rules. A redirect from TCP into a Unix domain socket, or from one socket to another, is
/// refused: a remote server must not reach a local daemon. AsyncHTTPClient's `RedirectState`
/// and curl (`CURLOPT_UNRESTRICTED_AUTH`, CVE-2018-1000007, CVE-2022-27774) behave alike.
struct RedirectPolicy {
    /// The headers that never cross an origin, beside the manager's sensitive ones (lower-case).
    static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization", "origin"]
    /// The redirects an attempt follows; the next fails the task, as on Apple platforms.
    static let maximumRedirects = 16

    /// The manager's `redaction`: the secret headers a redirect to another origin drops.
    var redaction: Redaction
    /// The manager's `sendsCredentialsAcrossOrigins`, or the task's own: whether its redirects
    /// keep credentials across origins.
    var sendsCredentialsAcrossOrigins: Bool

    /// Why a redirect was refused.
    enum Refusal: Error, Equatable {
        /// From TCP into a Unix domain socket, or from one socket to another.
        case intoUnixSocket
    }

    /// What becomes of a redirect.
    enum Decision {
        /// Followed with this request.
        case follow(URLRequest)
        /// Past `maximumRedirects`: not followed, the task fails.
        case tooMany
        /// Refused by the origin rules: not followed, the task fails.
        case refused(Refusal)
        /// A 307 or 308 of a request with a body its carrier cannot send again: not followed,
        /// the task stops at the redirect response.
        case wouldDropBody
    }

    /// The decision on the redirect `response` (with `status`, from `previous`), the attempt's
    /// `redirectNumber`-th, as `proposed` by the carrier (its URL the `Location`, its headers
    /// the previous request's). `hasRequestBody`: whether the task's request has a body;
    /// `resendsBody`: whether the carrier can send it again.
    func decide(
        _ proposed: URLRequest, status: Int, from previous: URL?, redirectNumber: Int, hasRequestBody: Bool, resendsBody: Bool
    ) -> Decision {
        guard redirectNumber <= Self.maximumRedirects else { return .tooMany }
        var next = proposed
        if let previous {
            switch follow(proposed, from: previous) {
            case .success(let request): next = request
            case .failure(let refusal): return .refused(refusal)
            }
        }
        if [307, 308].contains(status), hasRequestBody, !resendsBody { return .wouldDropBody }
        return .follow(next)
    }

    /// The request to follow a redirect from `previous` with, `proposed` less what may not
    /// cross to its origin, or why it is refused.
    func follow(_ proposed: URLRequest, from previous: URL) -> Result<URLRequest, Refusal> {
        guard let target = proposed.url else { return .success(proposed) }
        if Self.isUnixSocket(target), !Self.isUnixSocket(previous) || Self.origin(of: target) != Self.origin(of: previous) {
            return .failure(.intoUnixSocket)
        }
        guard !sendsCredentialsAcrossOrigins, Self.origin(of: target) != Self.origin(of: previous) else { return .success(proposed) }
        var next = proposed
        for name in (proposed.allHTTPHeaderFields ?? [:]).keys {
            let lowercased = name.lowercased()
            if Self.credentialHeaders.contains(lowercased) || redaction.isSecret(header: name) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return .success(next)
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
}
