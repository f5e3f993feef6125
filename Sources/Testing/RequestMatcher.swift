import Foundation

/// Which requests a stub route answers: each criterion set must hold (method, path or URL,
/// query items, header fields, body); those left `nil` or empty match anything.
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// The method, compared in any case; `nil` for any.
    public var method: String?
    /// The URL's path (`/v1/users/1`), or a whole absolute URL without its query
    /// (`https://api.example.com/v1/users/1`); a segment `*` matches any one segment
    /// (`/v1/users/*`); `nil` for any.
    public var path: String?
    /// Query items that must be present with these values (others may be too).
    public var query: [String: String]
    /// Header fields that must be present with these values (names in any case).
    public var headers: [String: String]
    /// What the body must be; `nil` for any.
    public var body: BodyMatch?

    /// A matcher of the criteria given; every one defaults to "any".
    public init(method: String? = nil, path: String? = nil, query: [String: String] = [:], headers: [String: String] = [:], body: BodyMatch? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Whether `request` matches every criterion.
    public func matches(_ request: RecordedRequest) -> Bool {
        unmet(by: request) == 0
    }

    /// How many criteria `request` does not meet (0: it matches), for naming the nearest routes.
    func unmet(by request: RecordedRequest) -> Int {
        var unmet = 0
        if let method, method.caseInsensitiveCompare(request.method) != .orderedSame { unmet += 1 }
        if let path, !Self.path(path, matches: request) { unmet += 1 }
        let items = request.queryItems
        unmet += query.filter { name, value in !items.contains { $0.name == name && $0.value == value } }.count
        unmet += headers.filter { name, value in request.value(forHeader: name) != value }.count
        if let body, !body.matches(request.body, request.value(forHeader: "Content-Type")) { unmet += 1 }
        return unmet
    }

    private static func path(_ path: String, matches request: RecordedRequest) -> Bool {
        guard path.contains("://") else {
            return request.url.map { pattern(path, matches: $0.path) } == true || pattern(path, matches: request.path)
        }
        guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return false }
        components.query = nil
        return components.url.map { pattern(path, matches: $0.absoluteString) } ?? false
    }

    /// Whether `candidate` is `pattern`, a `*` segment of the pattern standing for any one
    /// non-empty segment. Segments end at each `/` scalar: a decoded path may hold a `/`
    /// followed by a combining mark, one `Character` with it.
    static func pattern(_ pattern: String, matches candidate: String) -> Bool {
        guard pattern.unicodeScalars.contains("*") else { return pattern == candidate }
        let expected = pattern.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let actual = candidate.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return expected.count == actual.count && zip(expected, actual).allSatisfy { $0 == "*" ? !$1.isEmpty : $0 == $1 }
    }

    /// "METHOD path", then the query, header names and body required, as errors name the route.
    public var description: String {
        var parts = [method ?? "any method", path ?? "any path"]
        if !query.isEmpty { parts.append("query \(query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&"))") }
        if !headers.isEmpty { parts.append("headers \(headers.keys.sorted().joined(separator: ", "))") }
        if let body { parts.append("body \(body)") }
        return parts.joined(separator: " ")
    }
}

/// What a request's body must be for a route to match.
public struct BodyMatch: Sendable, CustomStringConvertible {
    /// What the body must be, as errors name it.
    public let description: String
    /// Decides from the body and the request's `Content-Type`.
    let matches: @Sendable (Data, String?) -> Bool

    /// A body decided by `predicate` (named `description` in errors).
    public static func custom(_ description: String, _ predicate: @escaping @Sendable (Data, _ contentType: String?) -> Bool) -> BodyMatch {
        BodyMatch(description: description, matches: predicate)
    }

    /// Exactly these bytes.
    public static func bytes(_ bytes: Data) -> BodyMatch {
        .custom("of \(bytes.count) bytes") { body, _ in body == bytes }
    }

    /// JSON equal to `value` encoded (objects compared whatever the order of their keys).
    public static func json<Value: Encodable>(_ value: Value) throws -> BodyMatch {
        let expected = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value), options: [.fragmentsAllowed]) as? NSObject
        let box = SendableObject(expected)
        return .custom("JSON \(String(describing: expected.map { $0 }))") { body, _ in
            guard let actual = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) as? NSObject else { return false }
            return box.object?.isEqual(actual) ?? false
        }
    }

    /// A URL-encoded form with at least these fields.
    public static func form(_ fields: [String: String]) -> BodyMatch {
        .custom("form \(fields.keys.sorted().joined(separator: ", "))") { body, _ in
            let items = RecordedRequest.formFields(of: body)
            return fields.allSatisfy { name, value in items.contains { $0.name == name && $0.value == value } }
        }
    }

    /// A multipart form with a part named `name` (and, when given, `filename` and exactly
    /// `content`).
    public static func multipartPart(named name: String, filename: String? = nil, content: Data? = nil) -> BodyMatch {
        .custom("a multipart part named \(name)") { body, contentType in
            MultipartParts.parse(body, contentType: contentType).contains { part in
                part.name == name && (filename == nil || part.filename == filename) && (content == nil || part.content == content)
            }
        }
    }
}

/// An `NSObject` (a JSON value) carried into a `@Sendable` closure; never mutated.
private struct SendableObject: @unchecked Sendable {
    // @unchecked: the object is made once, before the closure, and only read.
    let object: NSObject?

    init(_ object: NSObject?) { self.object = object }
}
