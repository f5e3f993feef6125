import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds requests whose parameters are encoded as a query string: in the URI for GET, HEAD
/// and DELETE, and as an `application/x-www-form-urlencoded` body for every other method.
///
/// One serializer is typically shared by a session manager and configured from any thread:
/// all of its state sits behind one lock, so concurrent reads and writes are safe.
/// AFNetworking: `AFHTTPRequestSerializer`.
open class HTTPRequestSerializer: URLRequestSerialization, @unchecked Sendable {
    // @unchecked: every stored property is either immutable or the `state` lock; subclasses
    // in this module add only immutable properties.

    /// A custom query-string encoder: it receives the request and the parameters and returns
    /// the query (without `?`); an error it throws aborts serialization and is rethrown as is.
    /// AFNetworking: `setQueryStringSerializationWithBlock:`.
    public typealias QueryStringSerialization = @Sendable (URLRequest, Any) throws -> String

    struct State {
        var headers: [String: (name: String, value: String)] = [:]
        var methodsEncodingParametersInURI: Set<String> = ["GET", "HEAD", "DELETE"]
        var queryStringSerialization: QueryStringSerialization?
        var allowsCellularAccess: Bool?
        var cachePolicy: URLRequest.CachePolicy?
        var httpShouldHandleCookies: Bool?
        var networkServiceType: URLRequest.NetworkServiceType?
        var timeoutInterval: TimeInterval?
    }

    let state = Locked(State())

    /// A serializer with AFNetworking's defaults: `Accept-Language` from the preferred
    /// languages and a `User-Agent` naming the executable and the OS.
    public init() {
        setValue(Self.defaultAcceptLanguage, forHTTPHeaderField: "Accept-Language")
        setValue(Self.defaultUserAgent, forHTTPHeaderField: "User-Agent")
    }

    // MARK: Headers

    /// The default headers added to every request that does not already carry them.
    /// AFNetworking: `HTTPRequestHeaders`.
    public var httpRequestHeaders: [String: String] {
        state.withLock { state in
            Dictionary(uniqueKeysWithValues: state.headers.values.map { ($0.name, $0.value) })
        }
    }

    /// Sets a default header; `nil` removes it. Names compare case-insensitively. A name or
    /// value that could inject headers is kept but makes every later serialization throw
    /// `RequestSerializationError.invalidHeader`, so it can never be sent.
    public func setValue(_ value: String?, forHTTPHeaderField field: String) {
        state.withLock { state in
            state.headers[field.lowercased()] = value.map { (name: field, value: $0) }
        }
    }

    /// The default value for `field` (case-insensitive), if any.
    public func value(forHTTPHeaderField field: String) -> String? {
        state.withLock { $0.headers[field.lowercased()]?.value }
    }

    /// Sets `Authorization: Basic base64(username:password)` (UTF-8).
    /// AFNetworking: `setAuthorizationHeaderFieldWithUsername:password:`.
    public func setAuthorizationHeaderField(username: String, password: String) {
        setValue(BasicAuthorization.headerValue(user: username, password: password), forHTTPHeaderField: "Authorization")
    }

    /// Removes the `Authorization` default header.
    public func clearAuthorizationHeader() {
        setValue(nil, forHTTPHeaderField: "Authorization")
    }

    // MARK: Query string

    /// Methods whose parameters go into the URI query; compared uppercased.
    /// Default `["GET", "HEAD", "DELETE"]`. AFNetworking: `HTTPMethodsEncodingParametersInURI`.
    public var httpMethodsEncodingParametersInURI: Set<String> {
        get { state.withLock { $0.methodsEncodingParametersInURI } }
        set { state.withLock { $0.methodsEncodingParametersInURI = Set(newValue.map { $0.uppercased() }) } }
    }

    /// Replaces the default query-string encoding; `nil` restores it.
    public func setQueryStringSerialization(_ serialization: QueryStringSerialization?) {
        state.withLock { $0.queryStringSerialization = serialization }
    }

    // MARK: Request properties, applied only when set explicitly

    /// Applied to requests only once set. Default (when unset) `true`.
    public var allowsCellularAccess: Bool {
        get { explicitValue(\.allowsCellularAccess) ?? true }
        set { setExplicitValue(\.allowsCellularAccess, newValue) }
    }

    /// Applied to requests only once set. Default (when unset) `.useProtocolCachePolicy`.
    public var cachePolicy: URLRequest.CachePolicy {
        get { explicitValue(\.cachePolicy) ?? .useProtocolCachePolicy }
        set { setExplicitValue(\.cachePolicy, newValue) }
    }

    /// Applied to requests only once set. Default (when unset) `true`.
    public var httpShouldHandleCookies: Bool {
        get { explicitValue(\.httpShouldHandleCookies) ?? true }
        set { setExplicitValue(\.httpShouldHandleCookies, newValue) }
    }

    /// Applied to requests only once set. Default (when unset) `.default`.
    public var networkServiceType: URLRequest.NetworkServiceType {
        get { explicitValue(\.networkServiceType) ?? .default }
        set { setExplicitValue(\.networkServiceType, newValue) }
    }

    /// Applied to requests only once set. Default (when unset) 60 seconds. On Linux this is an
    /// idle timeout: it fires when no byte moves for that long.
    public var timeoutInterval: TimeInterval {
        get { explicitValue(\.timeoutInterval) ?? 60 }
        set { setExplicitValue(\.timeoutInterval, newValue) }
    }

    private func explicitValue<Value>(_ property: KeyPath<State, Value?>) -> Value? {
        state.withLock { $0[keyPath: property] }
    }

    private func setExplicitValue<Value>(_ property: WritableKeyPath<State, Value?>, _ value: Value) {
        state.withLock { $0[keyPath: property] = value }
    }

    // MARK: Building requests

    /// A request for `method` and `urlString` with `parameters` encoded by
    /// `request(bySerializing:withParameters:)` and the explicitly set request properties.
    /// AFNetworking: `requestWithMethod:URLString:parameters:error:`.
    public func request(method: String, urlString: String, parameters: Any?) throws -> URLRequest {
        try request(bySerializing: baseRequest(method: method, urlString: urlString), withParameters: parameters)
    }

    /// Adds the default headers the request lacks, then encodes `parameters` as a query string:
    /// appended to the URL for `httpMethodsEncodingParametersInURI` (no `?` for an empty query),
    /// otherwise as the body with `Content-Type: application/x-www-form-urlencoded` unless set
    /// (an empty body for `nil` parameters).
    open func request(bySerializing request: URLRequest, withParameters parameters: Any?) throws -> URLRequest {
        try queryEncodedRequest(request, parameters: parameters)
    }

    /// The query-string encoding of this class, whichever subclass is asked.
    final func queryEncodedRequest(_ request: URLRequest, parameters: Any?) throws -> URLRequest {
        var request = try addingDefaultHeaders(to: request)
        let query = try parameters.map { try queryString(for: request, parameters: $0) }
        if encodesParametersInURI(request) {
            if let query, !query.isEmpty { request.url = try Self.url(request.url, appendingQuery: query) }
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
            request.httpBody = Data((query ?? "").utf8)
        }
        return request
    }

    /// The shared flow of the body-writing subclasses (JSON, property list): methods in
    /// `httpMethodsEncodingParametersInURI` keep the query string; `nil` parameters give no body
    /// and no `Content-Type`; otherwise `encode` writes the body and `contentType` is set unless
    /// the request has one.
    final func bodyEncodedRequest(
        _ request: URLRequest, parameters: Any?, contentType: String, encode: (_ object: Any) throws -> Data
    ) throws -> URLRequest {
        if encodesParametersInURI(request) { return try queryEncodedRequest(request, parameters: parameters) }
        var request = try addingDefaultHeaders(to: request)
        guard let parameters else { return request }
        let body = try encode(ParameterValue(parameters).foundationObject)
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        request.httpBody = body
        return request
    }

    /// Whether `request`'s method puts parameters in the URI (see `httpMethodsEncodingParametersInURI`).
    public func encodesParametersInURI(_ request: URLRequest) -> Bool {
        let method = (request.httpMethod ?? "GET").uppercased()
        return state.withLock { $0.methodsEncodingParametersInURI.contains(method) }
    }

    func baseRequest(method: String, urlString: String) throws -> URLRequest {
        guard let url = URL(string: urlString), url.scheme != nil else {
            throw RequestSerializationError.invalidURL(urlString)
        }
        var request = URLRequest(url: url)
        // A new request's method is GET; setting it anyway copies the request's storage.
        if method != "GET" { request.httpMethod = method }
        let state = state.withLock { $0 }
        if let value = state.allowsCellularAccess { request.allowsCellularAccess = value }
        if let value = state.cachePolicy { request.cachePolicy = value }
        if let value = state.httpShouldHandleCookies { request.httpShouldHandleCookies = value }
        if let value = state.networkServiceType { request.networkServiceType = value }
        if let value = state.timeoutInterval { request.timeoutInterval = value }
        // The default headers go on while this request is the only owner of its storage: added
        // later (`addingDefaultHeaders`) to a request passed in, the assignment copies the
        // storage first (7,600 instructions a request, callgrind).
        let defaults = try Self.checked(state.headers)
        if !defaults.isEmpty {
            request.allHTTPHeaderFields = Dictionary(uniqueKeysWithValues: defaults.values.map { ($0.name, $0.value) })
        }
        return request
    }

    /// `headers`, after checking every one for injection.
    private static func checked(_ headers: [String: (name: String, value: String)]) throws -> [String: (name: String, value: String)] {
        for header in headers.values { try HTTPHeaderValidation.validate(name: header.name, value: header.value) }
        return headers
    }

    /// Copies the default headers the request lacks, after checking every default for injection.
    func addingDefaultHeaders(to request: URLRequest) throws -> URLRequest {
        // Keyed by lowercased name: the request's own fields are looked up, not the defaults
        // lowercased again for every request.
        var missing = try Self.checked(state.withLock { $0.headers })
        var fields = request.allHTTPHeaderFields ?? [:]
        for name in fields.keys where !missing.isEmpty { missing[name.lowercased()] = nil }
        guard !missing.isEmpty else { return request }
        for header in missing.values { fields[header.name] = header.value }
        // One assignment: each `setValue(_:forHTTPHeaderField:)` copies the request's storage
        // and searches its fields, about 10,000 instructions a header on Linux.
        var request = request
        request.allHTTPHeaderFields = fields
        return request
    }

    func queryString(for request: URLRequest, parameters: Any) throws -> String {
        if let custom = state.withLock({ $0.queryStringSerialization }) {
            return try custom(request, parameters)
        }
        return try QueryStringEncoding.queryString(from: parameters)
    }

    /// Appends `query` with `?`, or `&` when the URL has a query already, keeping any fragment last.
    static func url(_ url: URL?, appendingQuery query: String) throws -> URL {
        let absolute = url?.absoluteString ?? ""
        let fragmentStart = absolute.firstIndex(of: "#") ?? absolute.endIndex
        let head = absolute[..<fragmentStart]
        let separator = head.contains("?") ? "&" : "?"
        let combined = head + separator + query + absolute[fragmentStart...]
        guard let result = URL(string: String(combined)) else {
            throw RequestSerializationError.invalidURL(String(combined))
        }
        return result
    }

    // MARK: Defaults

    /// Preferred languages with q = 1, 0.9, ... 0.5 (at most six), as AFNetworking sends them.
    static var defaultAcceptLanguage: String {
        Locale.preferredLanguages.prefix(6).enumerated().map { index, language in
            let quality = Double(10 - index) / 10
            return "\(language);q=\(quality == 1 ? "1" : String(format: "%.1f", quality))"
        }.joined(separator: ", ")
    }

    /// `<executable>/<version> (<OS description>)`, reduced to printable ASCII.
    static let defaultUserAgent: String = {
        let info = Bundle.main.infoDictionary
        let name = info?["CFBundleExecutable"] as? String
            ?? Bundle.main.executableURL?.lastPathComponent
            ?? ProcessInfo.processInfo.processName
        let version = info?["CFBundleShortVersionString"] as? String ?? info?["CFBundleVersion"] as? String
        let product = version.map { "\(name)/\($0)" } ?? name
        let agent = "\(product) (\(ProcessInfo.processInfo.operatingSystemVersionString))"
        return String(agent.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
    }()
}
