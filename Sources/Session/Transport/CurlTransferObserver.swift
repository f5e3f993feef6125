import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a `CurlTransport` asks of the manager that owns it, for the parts of a task URLSession
/// cannot carry for a custom protocol (upload progress, redirect decisions, credentials, the
/// consumer's pace).
/// Called on the transport's queue; implementations must not wait for it.
/// What a manager asks of one task's libcurl transfer.
package struct CurlTaskOptions: Sendable {
    package var limits: ResponseLimits
    /// Whether the task writes its body to a file (download limits apply).
    package var isDownload: Bool
    /// How long the whole task may take, redirects included; `nil` for no limit.
    package var totalTimeout: TimeInterval?
    /// The task's own client identity, over the transport's.
    package var clientIdentity: ClientIdentity?
    /// The task's interceptors, the manager's first; `nil` for none.
    package var interceptor: (any RequestInterceptor)?
    /// Whether the manager wants to hear of each attempt (`curlTask(_:willSend:attempt:)`).
    package var reportsAttempts: Bool
    /// Where the final response and the body go directly, beside URLSession (which then sees
    /// the response and the end only); `nil` to hand the body to URLSession's client.
    package var bodySink: (any CurlBodySink)?
}

/// Takes a task's final response and its body straight from the transport, on the transport's
/// queue: no `didLoad` call into URLSession and no operation on its delegate queue per chunk
/// (10,000 and 13,000 instructions of a small request). Must not wait for the transport.
package protocol CurlBodySink: AnyObject, Sendable {
    /// The final response, before any byte of its body.
    func transportDidReceive(_ response: HTTPURLResponse)
    /// The next bytes of the body, in libcurl's buffer: valid during the call only, so that
    /// the one copy made is the sink's own (into the body kept in memory, or the file's write).
    func transportDidReceive(_ bytes: UnsafeRawBufferPointer)
}

package protocol CurlTransferObserver: AnyObject, Sendable {
    /// The body bytes sent so far, and the body's length (-1 when unknown).
    func curlTask(_ task: URLSessionTask, didSendBodyData totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// The request to follow a redirect with, or `nil` to deliver the redirect response.
    func curlTask(_ task: URLSessionTask, willRedirectWith response: HTTPURLResponse, to request: URLRequest) -> URLRequest?
    /// The window through which `task`'s body arrives: the consumer reports every chunk it
    /// processed to it. Called before the first chunk.
    func curlTask(_ task: URLSessionTask, receivesBodyThrough window: CurlReceiveWindow)
    /// The credential that answers the first HTTP Basic challenge of `task`, the 401 `response`,
    /// if any. A challenge left unanswered reaches URLSession's delegate with the response.
    func curlTask(_ task: URLSessionTask, credentialFor response: HTTPURLResponse) -> URLCredential?
    /// One request and response of `task` (a redirect hop, or the last) ended.
    func curlTask(_ task: URLSessionTask, didFinish transaction: TransactionMetrics)
    /// What the manager asks of `task`'s transfer, read when it starts.
    func transferOptions(of task: URLSessionTask) -> CurlTaskOptions?
    /// Attempt `attempt` of `task` is about to send `request` (adapted); only when the task's
    /// options ask for it.
    func curlTask(_ task: URLSessionTask, willSend request: URLRequest, attempt: Int)
    /// The interceptors decided to retry the failed attempt `context` describes after `delay`.
    func curlTask(_ task: URLSessionTask, willRetry context: RetryContext, after delay: TimeInterval)
    /// The transport stopped `task`'s response for exceeding `limit`.
    func curlTask(_ task: URLSessionTask, exceeded limit: ResponseLimits.Limit, declaredLength: Int64?, response: HTTPURLResponse?)
}
