import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates, then parses the body as JSON. An empty body or a single space gives `nil` and no
/// error. Objects come back as `[String: any Sendable]`, arrays as `[any Sendable]`, numbers as
/// `NSNumber`, null as `NSNull`. AFNetworking: `AFJSONResponseSerializer`.
public struct JSONResponseSerializer: URLResponseSerialization, ResponseValidation {
    /// Accepted status codes (`nil`: all); see `ResponseValidation`.
    public var acceptableStatusCodes: IndexSet?
    /// Accepted MIME types (`nil`: all); see `ResponseValidation`.
    public var acceptableContentTypes: Set<String>?
    /// Options for `JSONSerialization`. Default: none; `.fragmentsAllowed` accepts bare values.
    public var readingOptions: JSONSerialization.ReadingOptions
    /// Drops keys whose value is null, and null array elements, at every depth. Default `false`.
    public var removesKeysWithNullValues: Bool

    /// Accepts 200-299 and `application/json`, `text/json`, `text/javascript`.
    public init(
        acceptableStatusCodes: IndexSet? = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/json", "text/json", "text/javascript"],
        readingOptions: JSONSerialization.ReadingOptions = [],
        removesKeysWithNullValues: Bool = false
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        self.readingOptions = readingOptions
        self.removesKeysWithNullValues = removesKeysWithNullValues
    }

    /// The parsed body, `nil` for an empty one.
    public func responseObject(for response: URLResponse?, data: Data?) throws -> (any Sendable)? {
        guard let body = try validatedBody(response, data: data) else { return nil }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: body, options: readingOptions)
        } catch {
            throw ResponseSerializationError(
                reason: .undecodableBody("invalid JSON"), response: response as? HTTPURLResponse, data: data,
                underlyingError: error)
        }
        return FoundationObjectConversion.sendable(object, removingNulls: removesKeysWithNullValues)
    }
}
