import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When a libcurl transfer answers a response with another request, and which: a redirect's
/// target (`RedirectRule` makes the request), and the one retry with a Basic credential. Pure:
/// tested without a server. The manager still decides whether a proposed redirect is followed.
enum FollowUpRules {
    /// The absolute target of a redirect response: a redirect status and a `Location`
    /// (relative to `url`). How many are followed is the manager's rule, for both transports.
    /// `location` is read only for a redirect status: `HTTPURLResponse.value(forHTTPHeaderField:)`
    /// compares every name through `NSString` (3,500 instructions a lookup).
    static func redirectTarget(status: Int, location: @autoclosure () -> String?, relativeTo url: URL?) -> URL? {
        guard [301, 302, 303, 307, 308].contains(status), let location = location() else { return nil }
        return URL(string: location, relativeTo: url)?.absoluteURL
    }

    /// Whether a response is a Basic challenge the transport may answer: a 401 with a Basic
    /// `WWW-Authenticate`, the first for this task, of a request whose body can be sent again
    /// (a stream cannot). `wwwAuthenticate` is read last, as `location` above.
    static func answersBasicChallenge(
        status: Int, wwwAuthenticate: @autoclosure () -> String?, alreadyAttempted: Bool, bodyIsStream: Bool
    ) -> Bool {
        status == 401 && !alreadyAttempted && !bodyIsStream && (wwwAuthenticate()?.lowercased().hasPrefix("basic") ?? false)
    }

    /// `request` again, with `Authorization: Basic` for `user` and `password`.
    static func authenticated(_ request: URLRequest, user: String, password: String) -> URLRequest {
        var next = request
        next.setValue(BasicAuthorization.headerValue(user: user, password: password), forHTTPHeaderField: "Authorization")
        return next
    }
}
