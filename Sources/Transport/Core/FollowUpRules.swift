import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When a libcurl transfer answers a response with another request, and which: a redirect's
/// target and the request that follows it, and whether a Basic challenge is answered (the task
/// makes the answer). Pure: tested without a server. The manager still decides whether a
/// proposed redirect is followed (`RedirectPolicy`).
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
        status == 401 && !alreadyAttempted && !bodyIsStream && (wwwAuthenticate().map(isBasic) ?? false)
    }

    /// Whether a challenge's scheme, the bytes up to its first space or comma, is `Basic` in
    /// any case (`BasicX` and `Basic` followed by a combining mark are other schemes).
    private static func isBasic(_ challenge: String) -> Bool {
        let scheme = challenge.utf8.prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: ",") }
        return scheme.count == 5 && zip(scheme, "basic".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// The request URLSession would follow a redirect with, before the origin rules: 303
    /// (except for HEAD), and 301/302 of a POST, turn into a GET without body; 307 and 308 keep
    /// the method and the body.
    static func redirectRequest(from request: URLRequest, to target: URL, status: Int) -> URLRequest {
        var next = request
        next.url = target
        let method = request.httpMethod?.uppercased() ?? "GET"
        if (status == 303 && method != "HEAD") || ([301, 302].contains(status) && method == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for header in ["Content-Type", "Content-Length"] { next.setValue(nil, forHTTPHeaderField: header) }
        }
        return next
    }
}
