import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates like `JSONResponseSerializer`, then decodes the body as `T` with `decoder`.
/// An empty body is an error here (there is no `T` to return); use `HTTPResponseSerializer`
/// for replies without content. Not in AFNetworking.
public struct DecodableResponseSerializer<T: Decodable & Sendable>: URLResponseSerialization, ResponseValidation {
    /// Accepted status codes (`nil`: all); see `ResponseValidation`.
    public var acceptableStatusCodes: IndexSet?
    /// Accepted MIME types (`nil`: all); see `ResponseValidation`.
    public var acceptableContentTypes: Set<String>?
    /// The decoder. Default: a plain `JSONDecoder()`.
    public var decoder: JSONDecoder

    /// Accepts 200-299 and `application/json`, `text/json`, `text/javascript`.
    public init(
        _ type: T.Type = T.self,
        decoder: JSONDecoder = JSONDecoder(),
        acceptableStatusCodes: IndexSet? = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/json", "text/json", "text/javascript"]
    ) {
        self.decoder = decoder
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The decoded value.
    public func responseObject(for response: URLResponse?, data: Data?) throws -> T {
        try validate(response, data: data)
        do {
            return try decoder.decode(T.self, from: data ?? Data())
        } catch {
            throw ResponseSerializationError(
                reason: .undecodableBody("cannot decode \(T.self)"), response: response as? HTTPURLResponse,
                data: data, underlyingError: error)
        }
    }
}
