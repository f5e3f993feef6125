import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a response was rejected. It carries the HTTP response and the body directly, so a
/// failure handler can read an API's error payload without digging through `userInfo`
/// (AFNetworking issues #3232 and #3551).
///
/// Bridges to `NSError` in `com.alamofire.error.serialization.response` with AFNetworking's
/// codes (-1011 bad status, -1016 unacceptable content type or undecodable body), its
/// descriptions, `NSURLErrorFailingURLErrorKey`, the response and data `userInfo` keys, and
/// `NSUnderlyingErrorKey`.
public struct ResponseSerializationError: Error, Sendable {
    /// What was wrong.
    public enum Reason: Sendable, Equatable {
        /// The status code is not in `acceptableStatusCodes`. Code -1011.
        case unacceptableStatusCode(Int)
        /// The MIME type (`nil` when absent) is not in `acceptableContentTypes`. Code -1016.
        case unacceptableContentType(String?)
        /// The body could not be decoded as the serializer's format. Code -1016.
        case undecodableBody(String)
    }

    /// What was wrong.
    public let reason: Reason
    /// The response that was rejected.
    public let response: HTTPURLResponse?
    /// The response body, as received.
    public let data: Data?
    /// The error underneath: the content-type error under a status error, or the parser's error.
    public let underlyingError: (any Error)?

    /// An error for `reason` about `response` and its body `data`.
    public init(reason: Reason, response: HTTPURLResponse?, data: Data?, underlyingError: (any Error)? = nil) {
        self.reason = reason
        self.response = response
        self.data = data
        self.underlyingError = underlyingError
    }

    /// The response's status code, if there was an HTTP response.
    public var statusCode: Int? { response?.statusCode }
}

extension ResponseSerializationError: CustomNSError, LocalizedError {
    /// AFNetworking's error domain for this layer.
    public static var errorDomain: String { AFNetworkingErrorKeys.responseSerializationDomain }

    /// AFNetworking's code for the failure (an `NSURLError` value).
    public var errorCode: Int {
        switch reason {
        case .unacceptableStatusCode: return URLError.badServerResponse.rawValue
        case .unacceptableContentType, .undecodableBody: return URLError.cannotDecodeContentData.rawValue
        }
    }

    /// A one-line description, AFNetworking's wording where it has one.
    public var errorDescription: String? {
        switch reason {
        case .unacceptableStatusCode(let code):
            // Lowercased: Apple's reason phrases, which AFNetworking's message carries, are.
            return "Request failed: \(HTTPURLResponse.localizedString(forStatusCode: code).lowercased()) (\(code))"
        case .unacceptableContentType(let type):
            return "Request failed: unacceptable content-type: \(type ?? "(null)")"
        case .undecodableBody(let description):
            return "The response body could not be decoded: \(description)"
        }
    }

    /// AFNetworking's `userInfo` keys for the bridged `NSError`.
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [:]
        userInfo[NSLocalizedDescriptionKey] = errorDescription
        userInfo[NSURLErrorFailingURLErrorKey] = response?.url
        userInfo[AFNetworkingErrorKeys.failingURLResponse] = response
        userInfo[AFNetworkingErrorKeys.failingURLResponseData] = data
        userInfo[NSUnderlyingErrorKey] = underlyingError.map { $0 as NSError }
        return userInfo
    }
}
