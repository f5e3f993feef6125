import Foundation

/// AFNetworking's error domains and `userInfo` keys, kept verbatim so that code ported from
/// AFNetworking which inspects `(error as NSError).domain` or `userInfo` keeps working.
public enum AFNetworkingErrorKeys {
    /// `AFURLRequestSerializationErrorDomain`.
    public static let requestSerializationDomain = "com.alamofire.error.serialization.request"
    /// `AFURLResponseSerializationErrorDomain`.
    public static let responseSerializationDomain = "com.alamofire.error.serialization.response"
    /// `AFNetworkingOperationFailingURLRequestErrorKey`: the request that failed to serialize.
    public static let failingURLRequest = "com.alamofire.serialization.request.error.response"
    /// `AFNetworkingOperationFailingURLResponseErrorKey`: the `HTTPURLResponse` that failed validation.
    public static let failingURLResponse = "com.alamofire.serialization.response.error.response"
    /// `AFNetworkingOperationFailingURLResponseDataErrorKey`: the body of that response.
    public static let failingURLResponseData = "com.alamofire.serialization.response.error.data"
}
