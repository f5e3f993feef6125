import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates, then parses the body as a property list (XML or binary). An empty body gives
/// `nil`. AFNetworking: `AFPropertyListResponseSerializer`.
public struct PropertyListResponseSerializer: URLResponseSerialization, ResponseValidation {
    /// Accepted status codes (`nil`: all); see `ResponseValidation`.
    public var acceptableStatusCodes: IndexSet?
    /// Accepted MIME types (`nil`: all); see `ResponseValidation`.
    public var acceptableContentTypes: Set<String>?

    /// Accepts 200-299 and `application/x-plist`.
    public init(
        acceptableStatusCodes: IndexSet? = IndexSet(integersIn: 200..<300),
        acceptableContentTypes: Set<String>? = ["application/x-plist"]
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The parsed property list, `nil` for an empty body.
    public func responseObject(for response: URLResponse?, data: Data?) throws -> (any Sendable)? {
        guard let body = try validatedBody(response, data: data) else { return nil }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: body, options: [], format: nil)
        } catch {
            throw ResponseSerializationError(
                reason: .undecodableBody("invalid property list"), response: response as? HTTPURLResponse,
                data: data, underlyingError: error)
        }
        return FoundationObjectConversion.sendable(object, removingNulls: false)
    }
}
