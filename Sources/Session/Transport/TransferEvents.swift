import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task's side of its transfer: what the transport asks and tells the task for the parts
/// URLSession cannot carry for a custom protocol (upload progress, redirect decisions,
/// credentials, the consumer's pace, metrics, attempts, limits). The manager's `TaskDelegate`
/// implements it; the transfer holds it weakly and calls it directly, on the transport's
/// queue. Implementations must not wait for the transport.
package protocol TransferEvents: AnyObject, Sendable {
    /// The body bytes sent so far, and the body's length (-1 when unknown).
    func transferDidSendBodyData(totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// The request to follow a redirect with, or `nil` to deliver the redirect response.
    func transfer(willRedirectWith response: HTTPURLResponse, to request: URLRequest) -> URLRequest?
    /// The window through which the body arrives: the consumer reports every chunk it
    /// processed to it. Called before the first chunk when the options read through it.
    func transferReceivesBody(through window: CurlReceiveWindow)
    /// `request` again with the credential that answers its first HTTP Basic challenge, the
    /// 401 `response`, if the task has one. A challenge left unanswered reaches URLSession's
    /// delegate with the response.
    func transfer(answeringBasicChallenge response: HTTPURLResponse, to request: URLRequest) -> URLRequest?
    /// One request and response (a redirect hop, or the last) ended.
    func transferDidFinish(_ transaction: TransactionMetrics)
    /// The request attempt `attempt` starts from, before the interceptors adapt it: the task's
    /// `request` with what the task makes again for each attempt (the cookie store's cookies as
    /// they are when it starts, which the previous attempt's responses may have changed).
    func transfer(requestForAttempt attempt: Int, from request: URLRequest) -> URLRequest
    /// Attempt `attempt` is about to send `request` (adapted); only when the options ask for it.
    func transfer(willSend request: URLRequest, attempt: Int)
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
    /// Whether the task wants to hear of each attempt (`transfer(willSend:attempt:)`).
    package var reportsAttempts: Bool
    /// Where the final response and the body go directly, beside URLSession (which then sees
    /// the response and the end only); `nil` to hand the body to URLSession's client.
    package var bodySink: (any CurlBodySink)?
    /// Whether the body's consumer takes chunks after they are handed on (URLSession's client, or
    /// a body sink that streams to a consumer), so that the transfer reads through the receive
    /// window; `false` for a sink that keeps or writes each chunk as it takes it.
    package var readsThroughWindow: Bool

    package init(
        limits: ResponseLimits, isDownload: Bool, totalTimeout: TimeInterval?, clientIdentity: ClientIdentity?,
        interceptor: (any RequestInterceptor)?, reportsAttempts: Bool, bodySink: (any CurlBodySink)?, readsThroughWindow: Bool
    ) {
        self.limits = limits
        self.isDownload = isDownload
        self.totalTimeout = totalTimeout
        self.clientIdentity = clientIdentity
        self.interceptor = interceptor
        self.reportsAttempts = reportsAttempts
        self.bodySink = bodySink
        self.readsThroughWindow = readsThroughWindow
    }
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

/// A task's registration with its transport, as its manager keeps it: the transport carrying
/// the task, the task's side of the transfer, and what it asks of it.
package struct TransferRegistration {
    package let transport: CurlTransport
    package let events: any TransferEvents
    package let options: TransferOptions

    package init(transport: CurlTransport, events: any TransferEvents, options: TransferOptions) {
        self.transport = transport
        self.events = events
        self.options = options
    }
}

/// Where `CurlURLProtocol` finds a task's registration: the delegate of the task's session (the
/// manager's), which URLSession on Linux hands the protocol through `URLSessionTask.delegate`.
/// URLSession makes a protocol with nothing but the task, and drops request properties
/// (`NSURLRequest.copy` does not copy `protocolProperties`), so the session's delegate is the
/// only path from a task to its manager that needs no process-wide map.
package protocol TransferRegistry: AnyObject {
    /// `task`'s registration, read when its transfer starts; `nil` for a task the manager did
    /// not make.
    func transferRegistration(for task: URLSessionTask) -> TransferRegistration?
}
