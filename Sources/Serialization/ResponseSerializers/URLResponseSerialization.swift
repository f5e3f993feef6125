import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates a response and turns its body into a value. Implementations are value types,
/// safe to share between threads. AFNetworking: `AFURLResponseSerialization`.
public protocol URLResponseSerialization: Sendable {
    /// What a successful serialization yields.
    associatedtype SerializedObject: Sendable

    /// The value for `response` and its body `data`, or a thrown error: a
    /// `ResponseSerializationError` when validation or decoding fails.
    /// AFNetworking: `responseObjectForResponse:data:error:`.
    func responseObject(for response: URLResponse?, data: Data?) throws -> SerializedObject
}

/// Status-code and content-type validation shared by the HTTP-based serializers.
/// AFNetworking: the validation half of `AFHTTPResponseSerializer`.
public protocol ResponseValidation {
    /// Accepted status codes; `nil` accepts all. Default 200-299.
    var acceptableStatusCodes: IndexSet? { get }
    /// Accepted MIME types; `nil` accepts all.
    var acceptableContentTypes: Set<String>? { get }
}

extension ResponseValidation {
    /// Throws when `response` is an `HTTPURLResponse` with an unacceptable status code or
    /// content type. When both are wrong, the status error is thrown with the content-type
    /// error as its `underlyingError`. As in AFNetworking, a content type is not checked for an
    /// empty body: a body-less reply (204, 205, `HEAD`) has nothing to misread.
    /// AFNetworking: `validateResponse:data:error:`.
    public func validate(_ response: URLResponse?, data: Data?) throws {
        guard let response = response as? HTTPURLResponse else { return }
        try validate(response, data: data, checksContentType: !(data ?? Data()).isEmpty)
    }

    /// The same rules for a response whose body is still to come (a streamed response): the
    /// content type is checked when `checksContentType` (the response may have a body), and the
    /// error carries `data` (`nil` before the body). Beyond AFNetworking.
    public func validate(_ response: HTTPURLResponse, data: Data?, checksContentType: Bool) throws {
        var error: ResponseSerializationError?
        if let types = acceptableContentTypes, checksContentType, !types.contains(response.mimeType ?? "") {
            error = ResponseSerializationError(
                reason: .unacceptableContentType(response.mimeType), response: response, data: data)
        }
        if let codes = acceptableStatusCodes, !codes.contains(response.statusCode) {
            error = ResponseSerializationError(
                reason: .unacceptableStatusCode(response.statusCode), response: response, data: data,
                underlyingError: error)
        }
        if let error { throw error }
    }
}

extension ResponseValidation {
    /// Validates, then returns `nil` for a missing, empty or single-space body (Rails answers
    /// `head :ok` with one space), otherwise the body. Decoding serializers start here.
    func validatedBody(_ response: URLResponse?, data: Data?) throws -> Data? {
        try validate(response, data: data)
        guard let data, !data.isEmpty, data != Data(" ".utf8) else { return nil }
        return data
    }
}

extension URLResponseSerialization {
    /// The serialized object type-erased, with a `nil` of an optional `SerializedObject` as a
    /// real `nil` rather than an `Optional.none` boxed in `any Sendable`.
    package func erasedResponseObject(for response: URLResponse?, data: Data?) throws -> (any Sendable)? {
        let object = try responseObject(for: response, data: data)
        if let optional = object as? any OptionalProtocol, optional.wrappedAny == nil { return nil }
        return object
    }
}
