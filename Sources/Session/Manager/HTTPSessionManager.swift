import AFLocking
import AFSecurity
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// REST conveniences on `URLSessionManager`: requests built by `requestSerializer` against
/// `baseURL`, sent at once, with success and failure handlers.
///
/// Failures that happen before a task exists (a serialization error, a header that could
/// inject, an invalidated session) call `failure` with a `nil` task, asynchronously, and the
/// method returns `nil`. AFNetworking: `AFHTTPSessionManager`.
open class HTTPSessionManager: URLSessionManager, @unchecked Sendable {
    // @unchecked: adds `requestSerializer`, kept in a `Locked`, and the immutable `baseURL`.

    /// Receives the task and the serialized response object.
    public typealias Success = @Sendable (_ task: URLSessionTask, _ responseObject: (any Sendable)?) -> Void
    /// Receives the task (`nil` when none was created) and the error.
    public typealias Failure = @Sendable (_ task: URLSessionTask?, _ error: any Error) -> Void

    /// The URL relative request paths resolve against; a `/` is appended to a non-empty path
    /// that lacks one, so `get("users")` on `https://host/api` reaches `https://host/api/users`.
    public let baseURL: URL?
    private let serializerState = Locked<HTTPRequestSerializer>(HTTPRequestSerializer())

    /// A manager for `baseURL` with `configuration` and `transport` (see
    /// `URLSessionManager.init(configuration:transport:)`).
    /// Defaults: `HTTPRequestSerializer` and `JSONResponseSerializer`.
    public init(
        baseURL: URL? = nil, configuration: URLSessionConfiguration? = nil, transport: HTTPTransport = .libcurl, cookieJar: CookieJar = CookieJar()
    ) {
        if let baseURL, !baseURL.path.isEmpty, !baseURL.absoluteString.hasSuffix("/") {
            self.baseURL = baseURL.appendingPathComponent("")
        } else {
            self.baseURL = baseURL
        }
        super.init(configuration: configuration, transport: transport, cookieJar: cookieJar)
    }

    /// Sets the security policy; a pinning policy needs an https `baseURL`, since without one
    /// nothing would be pinned: throws `SessionError.pinningRequiresHTTPS`.
    /// AFNetworking: `setSecurityPolicy:` (which raises an exception instead).
    override open func setSecurityPolicy(_ policy: SecurityPolicy) throws {
        if policy.pinningMode != .none, baseURL?.scheme?.lowercased() != "https" {
            throw SessionError.pinningRequiresHTTPS(baseURL: baseURL)
        }
        try super.setSecurityPolicy(policy)
    }

    /// Builds every request. Default `HTTPRequestSerializer()`.
    public var requestSerializer: HTTPRequestSerializer {
        get { serializerState.withLock { $0 } }
        set { serializerState.withLock { $0 = newValue } }
    }

    // MARK: REST methods

    /// GET; parameters go into the query. AFNetworking: `GET:parameters:headers:progress:success:failure:`.
    @discardableResult
    public func get(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil, progress: ProgressHandler? = nil,
        success: Success? = nil, failure: Failure? = nil
    ) -> URLSessionTask? {
        start(dataTask(httpMethod: "GET", urlString: urlString, parameters: parameters, headers: headers,
                       downloadProgress: progress, success: success, failure: failure))
    }

    /// HEAD; `success` gets the task only. AFNetworking: `HEAD:parameters:headers:success:failure:`.
    @discardableResult
    public func head(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        success: (@Sendable (URLSessionTask) -> Void)? = nil, failure: Failure? = nil
    ) -> URLSessionTask? {
        var taskSuccess: Success?
        if let success { taskSuccess = { task, _ in success(task) } }
        return start(dataTask(httpMethod: "HEAD", urlString: urlString, parameters: parameters, headers: headers,
                              success: taskSuccess, failure: failure))
    }

    /// POST; parameters go into the body. AFNetworking: `POST:parameters:headers:progress:success:failure:`.
    @discardableResult
    public func post(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil, progress: ProgressHandler? = nil,
        success: Success? = nil, failure: Failure? = nil
    ) -> URLSessionTask? {
        start(dataTask(httpMethod: "POST", urlString: urlString, parameters: parameters, headers: headers,
                       uploadProgress: progress, success: success, failure: failure))
    }

    /// A streamed multipart POST: `parameters` as form fields, then the parts `block` appends.
    /// AFNetworking: `POST:parameters:headers:constructingBodyWithBlock:progress:success:failure:`.
    @discardableResult
    public func post(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        constructingBodyWith block: (any MultipartFormData) throws -> Void, progress: ProgressHandler? = nil,
        success: Success? = nil, failure: Failure? = nil
    ) -> URLSessionTask? {
        let task = makeTask(failure: failure) {
            try makeDataTask(with: multipartRequest(urlString, parameters: parameters, headers: headers, constructingBodyWith: block),
                             credential: nil, uploadProgress: progress, completion: Self.completion(success: success, failure: failure))
        }
        return start(task)
    }

    /// PUT. AFNetworking: `PUT:parameters:headers:success:failure:`.
    @discardableResult
    public func put(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        success: Success? = nil, failure: Failure? = nil
    ) -> URLSessionTask? {
        start(dataTask(httpMethod: "PUT", urlString: urlString, parameters: parameters, headers: headers, success: success, failure: failure))
    }

    /// PATCH. AFNetworking: `PATCH:parameters:headers:success:failure:`.
    @discardableResult
    public func patch(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        success: Success? = nil, failure: Failure? = nil
    ) -> URLSessionTask? {
        start(dataTask(httpMethod: "PATCH", urlString: urlString, parameters: parameters, headers: headers, success: success, failure: failure))
    }

    /// DELETE; parameters go into the query. AFNetworking: `DELETE:parameters:headers:success:failure:`.
    @discardableResult
    public func delete(
        _ urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        success: Success? = nil, failure: Failure? = nil
    ) -> URLSessionTask? {
        start(dataTask(httpMethod: "DELETE", urlString: urlString, parameters: parameters, headers: headers, success: success, failure: failure))
    }

    /// A task for any method, not yet resumed; `nil` (with `failure` called asynchronously)
    /// when the request cannot be built. Per-request `headers` override the serializer's.
    /// AFNetworking: `dataTaskWithHTTPMethod:URLString:parameters:headers:uploadProgress:downloadProgress:success:failure:`.
    public func dataTask(
        httpMethod: String, urlString: String, parameters: Any? = nil, headers: [String: String]? = nil,
        uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil,
        success: Success? = nil, failure: Failure? = nil
    ) -> URLSessionTask? {
        makeTask(failure: failure) {
            let request = try request(method: httpMethod, urlString: urlString, parameters: parameters, headers: headers)
            return try makeDataTask(with: request, credential: nil, uploadProgress: uploadProgress,
                                    downloadProgress: downloadProgress, completion: Self.completion(success: success, failure: failure))
        }
    }

    // MARK: Building requests

    /// The request the REST methods send: `urlString` resolved against `baseURL`, serialized
    /// with `parameters`, then `headers` applied (checked for CR/LF first).
    public func request(method: String, urlString: String, parameters: Any?, headers: [String: String]?) throws -> URLRequest {
        // Without a base URL the serializer's own parse is the only one needed (it throws the
        // same `invalidURL` for a string that is not an absolute URL).
        let absolute = baseURL == nil ? urlString : try resolve(urlString)
        var request = try requestSerializer.request(method: method, urlString: absolute, parameters: parameters)
        try Self.apply(headers, to: &request)
        return request
    }

    /// The multipart POST the multipart methods send: `urlString` resolved against `baseURL`,
    /// `parameters` as form fields, then the parts `block` appends, then `headers` applied.
    func multipartRequest(
        _ urlString: String, parameters: Any?, headers: [String: String]?, constructingBodyWith block: (any MultipartFormData) throws -> Void
    ) throws -> URLRequest {
        var request = try requestSerializer.multipartFormRequest(
            method: "POST", urlString: try resolve(urlString), parameters: parameters, constructingBodyWith: block)
        try Self.apply(headers, to: &request)
        return request
    }

    /// `urlString` resolved against `baseURL`, as an absolute string.
    public func resolve(_ urlString: String) throws -> String {
        guard let url = URL(string: urlString, relativeTo: baseURL), url.scheme != nil else {
            throw RequestSerializationError.invalidURL(urlString)
        }
        return url.absoluteString
    }

    static func apply(_ headers: [String: String]?, to request: inout URLRequest) throws {
        guard let headers else { return }
        try HTTPHeaderValidation.validate(headers: headers)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    }

    private func makeTask(failure: Failure?, _ build: () throws -> URLSessionTask) -> URLSessionTask? {
        do {
            return try build()
        } catch {
            let queue = completionQueue ?? processingQueue
            completionGroup.enter()
            queue.async { [group = completionGroup] in
                failure?(nil, error)
                group.leave()
            }
            return nil
        }
    }

    private func start(_ task: URLSessionTask?) -> URLSessionTask? {
        task.map(resume)
        return task
    }

    private static func completion(success: Success?, failure: Failure?) -> TaskCompletion {
        { task, _, object, error in
            if let error { failure?(task, error) } else { success?(task, object) }
        }
    }
}
