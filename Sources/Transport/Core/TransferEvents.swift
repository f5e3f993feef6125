import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one interface between a task and the transfer that carries it: what the transfer tells
/// the task (the final response, its body, its trailers, the end or the failure, which flow
/// down to the task and never make the transport look the task up) and the decisions it asks
/// of it (redirects, credentials, the request of each attempt). The manager's `TaskDelegate`
/// implements it; the transfer holds it weakly and calls it directly, on the transport's
/// queue, in order. Implementations must not wait for the transport.
package protocol TransferEvents: AnyObject, Sendable {
    /// The final response, before any byte of its body.
    func transferDidReceive(_ response: HTTPURLResponse)
    /// The next bytes of the body, in libcurl's buffer: valid during the call only, so that
    /// the one copy made is the task's own (into the body kept in memory, the file's write, or
    /// the stream's chunk).
    func transferDidReceive(_ bytes: UnsafeRawBufferPointer)
    /// The transfer ended: with `error`, or `nil` when the response's body arrived whole. Called
    /// exactly once, last, unless the task cancelled the transfer (`CurlTransfer.cancel(with:)`
    /// then ends it with the cancellation's error, unless it had ended already).
    func transferDidComplete(with error: (any Error)?)
    /// The body bytes sent so far, and the body's length (-1 when unknown).
    func transferDidSendBodyData(totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// The request to follow a redirect with, or `nil` to deliver the redirect response.
    /// `resendsBody`: whether the carrier can send the request's body again (a 307 or 308
    /// keeps it); a body stream that cannot start over cannot be.
    func transfer(willRedirectWith response: HTTPURLResponse, to request: URLRequest, resendsBody: Bool) -> URLRequest?
    /// The window through which the body arrives: the consumer reports every chunk it
    /// processed to it. Called before the first chunk when the options read through it.
    func transferReceivesBody(through window: ReceiveWindow)
    /// `request` again with the credential that answers its first HTTP Basic challenge, the
    /// 401 `response`, if the task has one. A challenge left unanswered ends the transfer with
    /// the response.
    func transfer(answeringBasicChallenge response: HTTPURLResponse, to request: URLRequest) -> URLRequest?
    /// One request and response (a redirect hop, or the last) ended.
    func transferDidFinish(_ transaction: TransactionMetrics)
    /// The request attempt `attempt` starts from, before the interceptors adapt it: the task's
    /// `request` with what the task makes again for each attempt (the cookie store's cookies as
    /// they are when it starts, which the previous attempt's responses may have changed).
    func transfer(requestForAttempt attempt: Int, from request: URLRequest) -> URLRequest
    /// Attempt `attempt` is about to send `request` (adapted), or the request that follows a
    /// redirect of it (`followsRedirect`); returns the request sent. Only when the options ask
    /// for it.
    func transfer(willSend request: URLRequest, attempt: Int, followsRedirect: Bool) -> URLRequest
    /// The interceptors decided to retry the failed attempt `context` describes after `delay`.
    func transfer(willRetry context: RetryContext, after delay: TimeInterval)
    /// The response's body ended with the trailer `fields` (by name, repeated names joined with
    /// ", "); before the client hears of the end. Only when the response had any.
    func transfer(receivedTrailers fields: [String: String])
    /// The transport stopped the response for exceeding `limit`.
    func transfer(exceeded limit: ResponseLimits.Limit, declaredLength: Int64?, response: HTTPURLResponse?)
}

/// What a task asks of its transfer, snapshotted when the transfer starts.
package struct TransferOptions: Sendable {
    package var limits: ResponseLimits
    /// Whether the task writes its body to a file (download limits apply).
    package var isDownload: Bool
    /// How long the whole task may take, redirects included; `nil` for no limit.
    package var totalTimeout: TimeInterval?
    /// The task's own client identity, over the transport's.
    package var clientIdentity: ClientIdentity?
    /// The task's interceptors, the manager's first; `nil` for none.
    package var interceptor: (any RequestInterceptor)?
    /// Whether the task wants to hear of each request sent (`transfer(willSend:attempt:followsRedirect:)`).
    package var reportsAttempts: Bool
    /// Whether the body's consumer takes chunks after they are handed on (a stream's consumer,
    /// or a task whose events wait on its manager's delegate queue), so that the transfer reads
    /// through the receive window; `false` for a task that keeps or writes each chunk as it
    /// takes it.
    package var readsThroughWindow: Bool

    package init(
        limits: ResponseLimits, isDownload: Bool, totalTimeout: TimeInterval?, clientIdentity: ClientIdentity?,
        interceptor: (any RequestInterceptor)?, reportsAttempts: Bool, readsThroughWindow: Bool
    ) {
        self.limits = limits
        self.isDownload = isDownload
        self.totalTimeout = totalTimeout
        self.clientIdentity = clientIdentity
        self.interceptor = interceptor
        self.reportsAttempts = reportsAttempts
        self.readsThroughWindow = readsThroughWindow
    }
}
