import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `async` REST methods. Each builds the request as the closure-based methods do, throws
/// instead of calling `failure`, and cancels the request when the calling task is cancelled.
extension HTTPSessionManager {
    /// GET, with the body decoded as `T` by `decoder` (default `JSONDecoder()`); parameters go into
    /// the query. AFNetworking: `GET:parameters:headers:progress:success:failure:`, awaited.
    public func get<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await decoded(request(method: "GET", urlString: urlString, parameters: parameters, headers: headers), as: type, decoder: decoder)
    }

    /// POST, with the body decoded as `T` by `decoder` (default `JSONDecoder()`); parameters go into
    /// the body. AFNetworking: `POST:parameters:headers:progress:success:failure:`, awaited.
    public func post<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await decoded(request(method: "POST", urlString: urlString, parameters: parameters, headers: headers), as: type, decoder: decoder)
    }

    /// PUT, with the body decoded as `T` by `decoder` (default `JSONDecoder()`); parameters go into
    /// the body. AFNetworking: `PUT:parameters:headers:success:failure:`, awaited.
    public func put<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await decoded(request(method: "PUT", urlString: urlString, parameters: parameters, headers: headers), as: type, decoder: decoder)
    }

    /// PATCH, with the body decoded as `T` by `decoder` (default `JSONDecoder()`); parameters go into
    /// the body. AFNetworking: `PATCH:parameters:headers:success:failure:`, awaited.
    public func patch<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await decoded(request(method: "PATCH", urlString: urlString, parameters: parameters, headers: headers), as: type, decoder: decoder)
    }

    /// DELETE, with the body decoded as `T` by `decoder` (default `JSONDecoder()`); parameters go into
    /// the query. AFNetworking: `DELETE:parameters:headers:success:failure:`, awaited.
    public func delete<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await decoded(request(method: "DELETE", urlString: urlString, parameters: parameters, headers: headers), as: type, decoder: decoder)
    }

    /// HEAD; returns the response when its status is 2xx. AFNetworking:
    /// `HEAD:parameters:headers:success:failure:`, awaited.
    public func head(_ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil) async throws -> HTTPURLResponse {
        try await send("HEAD", urlString, parameters: parameters, headers: headers, serializer: HTTPResponseSerializer()).response
    }

    /// Any method, with the response serialized by `serializer`. AFNetworking:
    /// `dataTaskWithHTTPMethod:URLString:parameters:headers:uploadProgress:downloadProgress:success:failure:`, awaited.
    public func send<S: URLResponseSerialization>(
        _ method: String, _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil, serializer: S,
        uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil
    ) async throws -> HTTPResponse<S.SerializedObject> {
        let request = try request(method: method, urlString: urlString, parameters: parameters, headers: headers)
        return try await response(for: request, serializer: serializer, uploadProgress: uploadProgress, downloadProgress: downloadProgress)
    }

    /// Any method, with the response serialized by the manager's `responseSerializer`.
    /// AFNetworking: `dataTaskWithHTTPMethod:URLString:parameters:headers:uploadProgress:downloadProgress:success:failure:`, awaited.
    public func send(
        _ method: String, _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil
    ) async throws -> HTTPResponse<(any Sendable)?> {
        let request = try request(method: method, urlString: urlString, parameters: parameters, headers: headers)
        return try await run { completion in
            try makeDataTask(with: request, credential: nil, completion: completion)
        }
    }

    /// A streamed multipart POST, with the body decoded as `T` by `decoder` (default
    /// `JSONDecoder()`). AFNetworking: `POST:parameters:headers:constructingBodyWithBlock:progress:success:failure:`, awaited.
    public func post<T: Decodable & Sendable>(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        constructingBodyWith block: (any MultipartFormData) throws -> Void, progress: ProgressHandler? = nil,
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) async throws -> T {
        try await decoded(multipartRequest(urlString, parameters: parameters, headers: headers, constructingBodyWith: block),
                          as: type, decoder: decoder, uploadProgress: progress)
    }

    /// `request` sent, its body decoded as `T` by `decoder`: what the typed methods share, each
    /// building its own request.
    private func decoded<T: Decodable & Sendable>(
        _ request: URLRequest, as type: T.Type, decoder: JSONDecoder, uploadProgress: ProgressHandler? = nil
    ) async throws -> T {
        try await response(for: request, serializer: DecodableResponseSerializer(type, decoder: decoder), uploadProgress: uploadProgress).value
    }
}
