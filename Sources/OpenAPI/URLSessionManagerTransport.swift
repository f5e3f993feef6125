#if OpenAPI
import AFNetworking
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` over a `URLSessionManager`: a generated client's
/// requests get the manager's transport, interceptors and retries, redirects, cookies,
/// security policy, cache, event monitors and instrumentation. Both bodies stream on Linux: the
/// request body is pulled as the transport sends it (`StreamedRequestBody`), and the response
/// returns at its head, its body arriving as it is read
/// (`URLSessionManager.stream(for:body:validation:credential:)`, at most the receive window
/// ahead of the consumer). A body of `iterationBehavior` `.multiple` is sent again whole on a
/// retry or a 307/308 redirect; one of `.single` is sent at most once, never truncated: a
/// 307/308 then throws `SessionError.redirectWouldDropBody` (with the redirect response), and a
/// retry an interceptor asks for throws `RetryError.bodyCannotBeReplayed` (`RetryPolicy` does
/// not retry a status response of such a request: that status is the response). A 4xx or 5xx
/// is a response, for the generated code to decide on; the transport's failures are thrown,
/// and cancelling the calling Swift task cancels the request. Repeated request header fields
/// are sent joined with ", "; repeated response fields arrive as one field, joined with ", " as
/// `HTTPURLResponse` holds them (each `Set-Cookie` still reaches the manager's cookie jar on
/// its own). Needs the `OpenAPI` trait. Beyond AFNetworking (after swift-openapi-urlsession's
/// `URLSessionTransport`, which on Linux collects both bodies in memory).
public struct URLSessionManagerTransport: ClientTransport {
    /// The manager that sends the requests.
    public let manager: URLSessionManager

    /// A transport sending through `manager`.
    public init(manager: URLSessionManager) {
        self.manager = manager
    }

    /// Sends `request` to `baseURL` (its path and query appended), with `body` streamed; returns
    /// the response at its head, with its body to read (`nil` for a response without one).
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        let urlRequest = try Self.urlRequest(request, baseURL: baseURL)
        let streamed = try await manager.stream(
            for: urlRequest, body: body.map(Self.streamedBody), validation: HTTPResponseSerializer(acceptableStatusCodes: nil))
        let head = streamed.response
        var fields = HTTPFields()
        // Each field as it came where the carrier kept them (libcurl), a repeated one repeated;
        // else as `HTTPURLResponse` joined them.
        let list = (head as? FieldLinesResponse)?.fieldList
            ?? head.allHeaderFields.compactMap { name, value in (name as? String).flatMap { name in (value as? String).map { (name, $0) } } }
        for (name, value) in list {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let response = HTTPTypes.HTTPResponse(status: HTTPTypes.HTTPResponse.Status(code: head.statusCode), headerFields: fields)
        let bodyless = request.method == .head || [204, 304].contains(head.statusCode) || head.expectedContentLength == 0
        let length: HTTPBody.Length = head.expectedContentLength >= 0 ? .known(head.expectedContentLength) : .unknown
        return (response, bodyless ? nil : HTTPBody(streamed.body, length: length, iterationBehavior: .single))
    }

    /// `request` as a `URLRequest` to `baseURL` with the request's path and query after its own.
    static func urlRequest(_ request: HTTPRequest, baseURL: URL) throws -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
              let target = URLComponents(string: request.path ?? "") else { throw URLError(.badURL) }
        components.percentEncodedPath += target.percentEncodedPath
        components.percentEncodedQuery = target.percentEncodedQuery
        guard let url = components.url else { throw URLError(.badURL) }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        return urlRequest
    }

    /// `body` as the manager streams it: restartable when it can be iterated more than once.
    static func streamedBody(_ body: HTTPBody) -> StreamedRequestBody {
        let length: Int64? = if case .known(let length) = body.length { length } else { nil }
        switch body.iterationBehavior {
        case .multiple: return StreamedRequestBody(length: length, restartingWith: { body.map { Data($0) } })
        case .single: return StreamedRequestBody(length: length, once: body.map { Data($0) })
        }
    }
}
#endif
