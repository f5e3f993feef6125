import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionManager {
    /// Sends `request` (with `body` produced as it is sent, when given) and returns as soon as
    /// the final response head has arrived and passed
    /// `validation` (its status codes, and its content types unless the response has no body),
    /// with the body as a `ResponseBody` to consume as it arrives. Redirects, credentials,
    /// interceptors and retries apply before the head is returned (a response an interceptor
    /// retries is never seen); a cut body that an interceptor continues goes on from where it
    /// was cut (a validated `Range` request), otherwise the body throws. The task's limits are a
    /// download's (`maximumDownloadSize`: the body is not held), its metrics and event monitors
    /// are reported as for any task. A GET takes part in the manager's `responseCache`: a stored
    /// response answers with its body as the stream, a `304` to its validation streams the stored
    /// body, and a body within the cache's memory capacity is stored when it completes (a larger
    /// one is streamed on and not kept). On the libcurl transport the transport reads at most its
    /// receive window (1 MiB) ahead of the consumer; on URLSession's own protocol, which has no
    /// back-pressure, chunks wait in memory until consumed. Throws the head's validation error
    /// (`ResponseSerializationError`, the body not read) or the task's failure; cancelling the
    /// calling Swift task before the head arrives cancels the request. Default validation:
    /// `HTTPResponseSerializer()` (200-299, any type). Beyond AFNetworking.
    public func stream(
        for request: URLRequest, body: StreamedRequestBody? = nil, validation: (any ResponseValidation)? = nil,
        credential: URLCredential? = nil
    ) async throws -> StreamedResponse {
        let request = body.map { Self.request(request, sending: $0) } ?? request
        let channel = ResponseBodyChannel()
        let cancellation = TaskCancellation()
        let response = try await withTaskCancellationHandler {
            let task = try makeTask(
                kind: request.httpBodyStream == nil ? .data : .upload, request: request, credential: credential,
                serializer: HTTPResponseSerializer(acceptableStatusCodes: nil),
                handlers: .init(completion: { _, _, _, error in channel.finish(error) }, bodyChannel: channel))
            channel.attach(task)
            cancellation.set(task)
            resume(task)
            return try await channel.head()
        } onCancel: {
            cancellation.cancel()
        }
        let body = ResponseBody(channel: channel)
        do {
            try Self.validateHead(response, of: request, with: validation ?? HTTPResponseSerializer())
        } catch {
            channel.cancel()
            throw error
        }
        return StreamedResponse(response: response, body: body)
    }

    /// Sends `request` with `body` produced as the transport sends it (`StreamedRequestBody`),
    /// and returns the response with the value `serializer` made of it. On the libcurl
    /// transport. Beyond AFNetworking.
    public func upload<S: URLResponseSerialization>(
        _ body: StreamedRequestBody, for request: URLRequest, serializer: S, credential: URLCredential? = nil
    ) async throws -> HTTPResponse<S.SerializedObject> {
        try await response(for: Self.request(request, sending: body), serializer: serializer, credential: credential)
    }

    /// `request` with `body` as its body stream, and its length as `Content-Length` when known
    /// and the body has no trailers (which need chunked framing).
    static func request(_ request: URLRequest, sending body: StreamedRequestBody) -> URLRequest {
        var request = request
        request.httpBody = nil
        request.httpBodyStream = AsyncSequenceBodyStream(body: body)
        request.setValue(body.hasTrailers ? nil : body.length.map(String.init), forHTTPHeaderField: "Content-Length")
        return request
    }

    /// `validation`'s rules for a head whose body has not been read: the status codes, and the
    /// content types unless the response can have no body (HEAD, 204, 304, a zero length).
    static func validateHead(_ response: HTTPURLResponse, of request: URLRequest, with validation: any ResponseValidation) throws {
        let bodyless = request.httpMethod?.uppercased() == "HEAD" || [204, 304].contains(response.statusCode)
            || response.expectedContentLength == 0
        try validation.validate(response, data: nil, checksContentType: !bodyless)
    }
}
