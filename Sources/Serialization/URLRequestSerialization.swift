import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes parameters into a request. Implementations must be safe to use from any thread.
/// AFNetworking: `AFURLRequestSerialization`.
public protocol URLRequestSerialization: Sendable {
    /// Returns a copy of `request` with `parameters` encoded into it and default headers added.
    ///
    /// `parameters` is AFNetworking's `id`: a dictionary (`[String: Any]`, nested freely),
    /// an array (JSON/property-list bodies), or any `Encodable` value, which follows the same
    /// rules as the dictionary it encodes to. Throws `RequestSerializationError`, or the error
    /// of a custom query-string closure.
    /// AFNetworking: `requestBySerializingRequest:withParameters:error:`.
    func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest
}
