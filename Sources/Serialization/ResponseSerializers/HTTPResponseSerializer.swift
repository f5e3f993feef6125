import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates status code and content type and passes the body through unchanged.
/// AFNetworking: `AFHTTPResponseSerializer`.
public struct HTTPResponseSerializer: URLResponseSerialization, ResponseValidation {
    /// Accepted status codes (`nil`: all); see `ResponseValidation`.
    public var acceptableStatusCodes: IndexSet?
    /// Accepted MIME types (`nil`: all); see `ResponseValidation`.
    public var acceptableContentTypes: Set<String>?

    /// Accepts 200-299 and (by default) any content type.
    public init(acceptableStatusCodes: IndexSet? = IndexSet(integersIn: 200..<300), acceptableContentTypes: Set<String>? = nil) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The body, after validation.
    public func responseObject(for response: URLResponse?, data: Data?) throws -> Data? {
        try validate(response, data: data)
        return data
    }
}
