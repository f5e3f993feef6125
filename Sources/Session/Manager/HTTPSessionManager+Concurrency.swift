import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `async` REST methods. Each builds the request as the closure-based methods do, throws
/// instead of calling `failure`, and cancels the request when the calling task is cancelled.
extension HTTPSessionManager {
    /// GET, with the body decoded as `T` by `decoder`.
    public func get<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await send("GET", urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// POST, with the body decoded as `T` by `decoder`.
    public func post<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await send("POST", urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// PUT, with the body decoded as `T` by `decoder`.
    public func put<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await send("PUT", urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// PATCH, with the body decoded as `T` by `decoder`.
    public func patch<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await send("PATCH", urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// DELETE, with the body decoded as `T` by `decoder`.
    public func delete<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await send("DELETE", urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// HEAD; returns the response when its status is 2xx.
    public func head(_ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil) async throws -> HTTPURLResponse {
        try await send("HEAD", urlString, parameters: parameters, headers: headers, serializer: HTTPResponseSerializer()).response
    }

    /// Any method, with the response serialized by `serializer`.
    public func send<S: URLResponseSerialization>(
        _ method: String, _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil, serializer: S,
        uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil
    ) async throws -> HTTPResponse<S.SerializedObject> {
        let request = try request(method: method, urlString: urlString, parameters: parameters, headers: headers)
        return try await response(for: request, serializer: serializer, uploadProgress: uploadProgress, downloadProgress: downloadProgress)
    }

    /// Any method, with the response serialized by the manager's `responseSerializer`.
    public func send(
        _ method: String, _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil
    ) async throws -> HTTPResponse<(any Sendable)?> {
        let request = try request(method: method, urlString: urlString, parameters: parameters, headers: headers)
        return try await run { completion in
            try makeDataTask(with: request, credential: nil, completion: completion)
        }
    }

    /// A streamed multipart POST, with the body decoded as `T` by `decoder`.
    public func post<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        constructingBodyWith block: (any MultipartFormData) throws -> Void, progress: ProgressHandler? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        var request = try requestSerializer.multipartFormRequest(
            method: "POST", urlString: try resolve(urlString), parameters: parameters, constructingBodyWith: block)
        try Self.apply(headers, to: &request)
        return try await response(for: request, serializer: DecodableResponseSerializer(type, decoder: decoder), uploadProgress: progress).value
    }
}
