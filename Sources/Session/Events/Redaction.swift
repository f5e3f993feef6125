import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What logs and debugging output never show: the values of credential headers and of query
/// parameters that carry secrets. Pure: tested without a server. Beyond AFNetworking.
public struct Redaction: Sendable, Equatable {
    /// What a redacted value is replaced with.
    public static let placeholder = "<redacted>"
    private static let encodedPlaceholder = "%3Credacted%3E"

    /// Headers whose values are hidden, compared case-insensitively. Default: `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `Api-Key`, `X-Auth-Token`,
    /// `Private-Token`, `X-Amz-Security-Token`, `X-Csrf-Token`, `X-Goog-Api-Key`.
    public var headers: Set<String>
    /// Query parameters whose values are hidden: a name containing any of these,
    /// case-insensitively. Default: `token`, `key`, `secret`, `password`, `signature`, `auth`,
    /// `credential`, `session`.
    public var queryNameFragments: Set<String>

    /// The default redaction, with `additionalHeaders` hidden as well.
    public init(additionalHeaders: Set<String> = []) {
        headers = Set(["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token",
                       "Private-Token", "X-Amz-Security-Token", "X-Csrf-Token", "X-Goog-Api-Key"]
            .map { $0.lowercased() }).union(additionalHeaders.map { $0.lowercased() })
        queryNameFragments = ["token", "key", "secret", "password", "signature", "auth", "credential", "session"]
    }

    /// `value`, or the placeholder when the header `name` is hidden.
    public func value(_ value: String, ofHeader name: String) -> String {
        headers.contains(name.lowercased()) ? Self.placeholder : value
    }

    /// `url` with the values of secret query parameters (and any password) replaced.
    public func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        // Set percent-encoded: Foundation traps on a percent-encoded value with `<` in it.
        if components.password != nil { components.percentEncodedPassword = Self.encodedPlaceholder }
        if let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                let name = item.name.lowercased()
                guard item.value != nil, queryNameFragments.contains(where: { name.contains($0) }) else { return item }
                return URLQueryItem(name: item.name, value: Self.encodedPlaceholder)
            }
        }
        return components.string ?? url.absoluteString
    }

    /// The header fields of `request`, sorted by name, with hidden values replaced.
    public func headerFields(of request: URLRequest) -> [(name: String, value: String)] {
        (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { (name: $0.key, value: value($0.value, ofHeader: $0.key)) }
    }
}
