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

    /// The target's path, percent-encoded as sent (`/v1/items`): up to the first `?` scalar
    /// (followed by a combining mark, a `?` is one `Character` with it).
    public var path: String { String(target.unicodeScalars.prefix { $0 != "?" }) }

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

    /// The fields of the URL-encoded form `body`, read as bytes as a browser's form parser
    /// does (WHATWG URL, application/x-www-form-urlencoded): fields split at each `&`, a name
    /// from its value at the first `=` (no `=`: no value), `+` a space, then percent-decoding.
    /// Through text, a `+` followed by a combining mark was one `Character` left unreplaced,
    /// and Foundation's query parser, given any byte outside ASCII, decoded no escape at all.
    static func formFields(of body: Data) -> [URLQueryItem] {
        body.split(separator: UInt8(ascii: "&")).map { field in
            guard let equals = field.firstIndex(of: UInt8(ascii: "=")) else { return URLQueryItem(name: formDecoded(field), value: nil) }
            return URLQueryItem(name: formDecoded(field[..<equals]), value: formDecoded(field[(equals + 1)...]))
        }
    }

    /// `bytes` with `+` as a space and each `%` with two hexadecimal digits as its byte, as UTF-8.
    private static func formDecoded(_ bytes: Data) -> String {
        let hex = { (byte: UInt8) -> UInt8? in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var decoded: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
