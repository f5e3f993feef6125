import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response whose head has arrived and been validated, and whose body streams
/// (`URLSessionManager.stream(for:validation:)`).
public struct StreamedResponse: Sendable {
    /// The final response head (after redirects, retries and interceptors).
    public let response: HTTPURLResponse
    /// The body, as it arrives.
    public let body: ResponseBody

    /// The response's status code.
    public var statusCode: Int { response.statusCode }
}
