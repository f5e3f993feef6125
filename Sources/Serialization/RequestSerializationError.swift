import Foundation

/// Why a request could not be built. Every case bridges to an `NSError` in
/// `com.alamofire.error.serialization.request` (AFNetworking's `AFURLRequestSerializationErrorDomain`)
/// with the code AFNetworking uses for the same failure.
public enum RequestSerializationError: Error, Sendable, Equatable {
    /// The URL string could not be parsed (AFNetworking asserts instead). Code -1000.
    case invalidURL(String)
    /// A header name or value contains CR, LF or NUL, or a name is empty or holds a colon:
    /// sending it would let the value inject headers. Code -1000.
    case invalidHeader(name: String, value: String)
    /// A multipart field name, filename or MIME type contains CR, LF or NUL. Code -1000.
    case invalidMultipartField(String)
    /// The parameters cannot be written as JSON (for example `Data`, NaN or a non-string key).
    /// Code -1016, "The `parameters` argument is not valid JSON."
    case invalidJSONParameters
    /// The parameters cannot be written as a property list. Code -1016.
    case invalidPropertyListParameters(reason: String)
    /// A query string needs a dictionary (or a keyed `Encodable`) at the top level. Code -1016.
    case invalidQueryParameters
    /// An `Encodable` parameter value failed to encode. Code -1016.
    case encodingFailed(reason: String)
    /// Multipart bodies are refused for GET and HEAD, which carry no body. Code -1000.
    case multipartNotAllowed(method: String)
    /// A multipart part was given a URL that is not a `file:` URL. Code -1000, "Expected URL to be a file URL".
    case notAFileURL(URL)
    /// A multipart file does not exist or cannot be read. Code -1000, "File URL not reachable."
    case fileNotReachable(URL)
    /// A multipart source delivered fewer bytes than it declared, so the body would be short.
    /// Code -1000.
    case bodySourceEndedEarly(expected: UInt64, received: UInt64)
    /// A multipart source failed while it was read. Code -1000.
    case bodySourceFailed(reason: String)
    /// `request(withMultipartFormRequest:writingStreamContentsToFile:)` got a request without a
    /// body stream. Code -1000.
    case missingBodyStream
    /// The multipart body could not be written to the requested file. Code -1000.
    case cannotWriteBody(URL, reason: String)

    static func encodingFailed(underlying: any Error) -> Self {
        .encodingFailed(reason: String(describing: underlying))
    }
}

extension RequestSerializationError: CustomNSError, LocalizedError {
    /// AFNetworking's error domain for this layer.
    public static var errorDomain: String { AFNetworkingErrorKeys.requestSerializationDomain }

    /// AFNetworking's code for the failure (an `NSURLError` value).
    public var errorCode: Int {
        switch self {
        case .invalidJSONParameters, .invalidPropertyListParameters, .invalidQueryParameters, .encodingFailed:
            return URLError.cannotDecodeContentData.rawValue
        case .invalidURL, .invalidHeader, .invalidMultipartField, .multipartNotAllowed, .notAFileURL,
             .fileNotReachable, .bodySourceEndedEarly, .bodySourceFailed, .missingBodyStream, .cannotWriteBody:
            return URLError.badURL.rawValue
        }
    }

    /// A one-line description, AFNetworking's wording where it has one.
    public var errorDescription: String? { failureReason }

    /// Why serialization failed; never includes a header value, which may hold a credential.
    public var failureReason: String? {
        switch self {
        case .invalidURL(let string): return "Invalid URL: \(string)"
        case .invalidHeader(let name, _): return "Header \"\(name)\" has an invalid name or a value containing CR, LF or NUL."
        case .invalidMultipartField(let field): return "Multipart field contains CR, LF or NUL: \(field.debugDescription)"
        case .invalidJSONParameters: return "The `parameters` argument is not valid JSON."
        case .invalidPropertyListParameters(let reason): return "The `parameters` argument is not a valid property list: \(reason)"
        case .invalidQueryParameters: return "Query parameters must be a dictionary or a keyed Encodable value."
        case .encodingFailed(let reason): return "The `parameters` argument failed to encode: \(reason)"
        case .multipartNotAllowed(let method): return "A multipart body cannot be sent with \(method)."
        case .notAFileURL: return "Expected URL to be a file URL"
        case .fileNotReachable: return "File URL not reachable."
        case .bodySourceEndedEarly(let expected, let received):
            return "A body source ended after \(received) of its declared \(expected) bytes."
        case .bodySourceFailed(let reason): return "A body source failed: \(reason)"
        case .missingBodyStream: return "The request has no body stream to write."
        case .cannotWriteBody(let url, let reason): return "Cannot write the body to \(url.path): \(reason)"
        }
    }

    /// AFNetworking's `userInfo` keys for the bridged `NSError`.
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [NSLocalizedFailureReasonErrorKey: failureReason ?? ""]
        userInfo[NSLocalizedDescriptionKey] = failureReason
        switch self {
        case .notAFileURL(let url), .fileNotReachable(let url), .cannotWriteBody(let url, _):
            userInfo[NSURLErrorFailingURLErrorKey] = url
        default:
            break
        }
        return userInfo
    }
}
