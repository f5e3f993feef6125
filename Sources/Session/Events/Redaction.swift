import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one list of secret names: what logs and debugging output never show (the values of
/// credential headers, and of query parameters, fragment parameters and path parameters that
/// carry secrets, names compared after percent-decoding), and what the manager never carries
/// to another origin on a redirect nor keeps in resume data. Used by `RequestLogger`,
/// `curlCommand`, the manager (`URLSessionManager.redaction`) and `afn`; extend it for your
/// own names. Pure: tested without a server. Beyond AFNetworking.
public struct Redaction: Sendable, Equatable {
    /// What a redacted value is replaced with.
    public static let placeholder = "<redacted>"
    private static let encodedPlaceholder = "%3Credacted%3E"

    /// Headers whose values are hidden, compared case-insensitively. Default: `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `Api-Key`, `X-Auth-Token`,
    /// `Private-Token`, `X-Amz-Security-Token`, `X-Csrf-Token`, `X-Goog-Api-Key`.
    public var headers: Set<String>
    /// Query, fragment (`#access_token=...`) and path (`;jsessionid=...`) parameters whose
    /// values are hidden: a name containing any of these, case-insensitively, after
    /// percent-decoding (`%74oken` is `token`). Default: `token`, `key`, `secret`, `password`,
    /// `passwd`, `signature`, `sig`, `auth`, `credential`, `session`, `jwt`, `code`.
    public var queryNameFragments: Set<String>
    /// Headers whose values are hidden too: a name containing any of these, case-insensitively
    /// (`X-Access-Token`, `X-Session-Secret`, `X-Upstream-Authorization`). Default: `token`,
    /// `secret`, `password`, `api-key`, `apikey`, `authorization`, `credential`, `cookie`.
    public var headerNameFragments: Set<String>

    /// The default redaction, with `additionalHeaders` hidden as well.
    public init(additionalHeaders: Set<String> = []) {
        headers = Set(["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token",
                       "Private-Token", "X-Amz-Security-Token", "X-Csrf-Token", "X-Goog-Api-Key"]
            .map { $0.lowercased() }).union(additionalHeaders.map { $0.lowercased() })
        queryNameFragments = ["token", "key", "secret", "password", "passwd", "signature", "sig", "auth", "credential", "session", "jwt",
                              "code"]
        headerNameFragments = ["token", "secret", "password", "api-key", "apikey", "authorization", "credential", "cookie"]
    }

    /// `value`, or the placeholder when the header `name` is hidden.
    public func value(_ value: String, ofHeader name: String) -> String {
        isSecret(header: name) ? Self.placeholder : value
    }

    /// Whether the header `name` carries a secret: named in `headers`, or containing one of
    /// `headerNameFragments`, in any case.
    public func isSecret(header name: String) -> Bool {
        let lowercased = name.lowercased()
        return headers.contains(lowercased) || headerNameFragments.contains { Self.bytes(of: lowercased, contain: $0) }
    }

    /// Whether `text` holds `fragment`, compared as UTF-8 bytes: a name such as `token` followed
    /// by a combining mark ends in another `Character`, which a search of the text would not
    /// match, yet the name still spells the secret's.
    private static func bytes(of text: String, contain fragment: String) -> Bool {
        let text = Array(text.utf8)
        let fragment = Array(fragment.utf8)
        guard !fragment.isEmpty else { return true }
        guard text.count >= fragment.count else { return false }
        return (0...(text.count - fragment.count)).contains { start in text[start..<(start + fragment.count)].elementsEqual(fragment) }
    }

    /// `url` with the values of secret query, fragment and path parameters (and any password)
    /// replaced.
    public func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        // Set percent-encoded: Foundation traps on a percent-encoded value with `<` in it.
        if components.password != nil { components.percentEncodedPassword = Self.encodedPlaceholder }
        if let query = components.percentEncodedQuery { components.percentEncodedQuery = redactedParameters(query, separator: "&") }
        if let fragment = components.percentEncodedFragment { components.percentEncodedFragment = redactedParameters(fragment, separator: "&") }
        components.percentEncodedPath = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            guard let semicolon = segment.firstIndex(of: ";") else { return String(segment) }
            return segment[..<semicolon] + ";" + redactedParameters(String(segment[segment.index(after: semicolon)...]), separator: ";")
        }.joined(separator: "/")
        return components.string ?? url.absoluteString
    }

    /// Whether a parameter named `name` (percent-encoded as it stands) carries a secret.
    public func isSecret(parameter name: String) -> Bool {
        let decoded = (name.removingPercentEncoding ?? name).lowercased()
        return queryNameFragments.contains { Self.bytes(of: decoded, contain: $0) }
    }

    /// `text`, parameters `name=value` joined by `separator`, with secret values replaced.
    private func redactedParameters(_ text: String, separator: Character) -> String {
        text.split(separator: separator, omittingEmptySubsequences: false).map { parameter in
            guard let equals = parameter.firstIndex(of: "="), isSecret(parameter: String(parameter[..<equals])) else { return String(parameter) }
            return parameter[...equals] + Self.encodedPlaceholder
        }.joined(separator: String(separator))
    }

    /// The header fields of `request`, sorted by name, with hidden values replaced.
    public func headerFields(of request: URLRequest) -> [(name: String, value: String)] {
        (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { (name: $0.key, value: value($0.value, ofHeader: $0.key)) }
    }
}
