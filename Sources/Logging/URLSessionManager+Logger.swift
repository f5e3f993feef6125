#if Logging
import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// The `async` APIs with a logger of the call's own, as AsyncHTTPClient's `execute(_:logger:)`:
/// the tasks the call makes log to `logger` instead of the manager's logger. Taken by the
/// manager's `LoggingInstrumentation` (its `instrumentation`, or one in an
/// `InstrumentationList`); a manager without one logs nothing. Needs the `Logging` trait.
/// Beyond AFNetworking.
extension URLSessionManager {
    /// `response(for:serializer:credential:uploadProgress:downloadProgress:)`, logged to `logger`.
    public func response<S: URLResponseSerialization>(
        for request: URLRequest, serializer: S, credential: URLCredential? = nil, logger: Logger
    ) async throws -> HTTPResponse<S.SerializedObject> {
        try await LoggingInstrumentation.$callLogger.withValue(logger) {
            try await response(for: request, serializer: serializer, credential: credential)
        }
    }

    /// `data(for:credential:)`, logged to `logger`.
    public func data(for request: URLRequest, credential: URLCredential? = nil, logger: Logger) async throws -> HTTPResponse<Data> {
        try await LoggingInstrumentation.$callLogger.withValue(logger) {
            try await data(for: request, credential: credential)
        }
    }
}

/// The REST `async` APIs with a logger of the call's own (as `URLSessionManager`'s). Needs the
/// `Logging` trait. Beyond AFNetworking.
extension HTTPSessionManager {
    /// `get(_:parameters:headers:as:decoder:)`, logged to `logger`.
    public func get<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil, as type: T.Type = T.self,
        decoder: JSONDecoder = JSONDecoder(), logger: Logger
    ) async throws -> T {
        try await LoggingInstrumentation.$callLogger.withValue(logger) {
            try await get(urlString, parameters: parameters, headers: headers, as: type, decoder: decoder)
        }
    }

    /// `send(_:_:parameters:headers:serializer:uploadProgress:downloadProgress:)`, logged to `logger`.
    public func send<S: URLResponseSerialization>(
        _ method: String, _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil, serializer: S,
        logger: Logger
    ) async throws -> HTTPResponse<S.SerializedObject> {
        try await LoggingInstrumentation.$callLogger.withValue(logger) {
            try await send(method, urlString, parameters: parameters, headers: headers, serializer: serializer)
        }
    }
}
#endif
