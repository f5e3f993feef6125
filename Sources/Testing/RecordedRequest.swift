import AFNetworking
import Foundation

/// A request exactly as it was sent: to a `TestServer` (the method, the target of its request
/// line, its header fields in order and as spelled, its whole body with a chunked one decoded,
/// the connection it came on, numbered from 1 in order of arrival), or to a `StubTransport` (as
/// the transport would send it: after the serializer and the interceptors, its whole body; its
/// fields sorted by name, connection 0).
public struct RecordedRequest: Sendable, Equatable {
    /// One header field as sent.
    public struct Field: Sendable, Equatable {
        /// The name, as spelled.
        public var name: String
        /// The value, without the whitespace around it.
        public var value: String

        /// A field `name: value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The method, as sent (`GET`).
    public var method: String
    /// The request target, as sent: the path and query (`/v1/items?page=2`).
    public var target: String
    /// The header fields in the order they were sent.
    public var fields: [Field]
    /// The body; empty when none was sent.
    public var body: Data
    /// The trailer fields sent after a chunked body, in order; empty when none were sent.
    public var trailers: [Field] = []
    /// The connection the request came on: 1 for the server's first, and so on; 0 for a stub.
    public var connection: Int
    /// The request's absolute URL.
    public var url: URL?
    /// The certificate the client presented on the request's connection, to a `TestServer`
    /// requiring client certificates; `nil` otherwise.
    public var clientCertificate: Certificate?

    /// A request of `method` to `target` with `fields` and `body`, on `connection`, to `url`.
    public init(method: String, target: String, fields: [Field], body: Data, connection: Int, url: URL? = nil) {
        self.method = method
        self.target = target
        self.fields = fields
        self.body = body
        self.connection = connection
        self.url = url
    }

    /// The target's path, percent-encoded as sent (`/v1/items`).
    public var path: String { String(target.prefix { $0 != "?" }) }

    /// The target's query items, decoded; empty without a query.
    public var queryItems: [URLQueryItem] { URLComponents(string: target)?.queryItems ?? [] }

    /// The value of the first field named `name` (compared in any case), or `nil`.
    public func value(forHeader name: String) -> String? {
        fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded from JSON as `type`, by `decoder`.
    public func decoded<Value: Decodable>(as type: Value.Type = Value.self, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        try decoder.decode(type, from: body)
    }

    /// The fields of a URL-encoded form body (`a=1&b=two`), decoded, in order.
    public var formFields: [URLQueryItem] { Self.formFields(of: body) }

    /// The fields of the URL-encoded form `body`.
    static func formFields(of body: Data) -> [URLQueryItem] {
        URLComponents(string: "?" + String(decoding: body, as: UTF8.self).replacingOccurrences(of: "+", with: "%20"))?.queryItems ?? []
    }
}
