import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failed attempt, as `RequestInterceptor.retry(_:)` sees it.
public struct RetryContext: Sendable {
    /// The most body bytes of an error response held back while the interceptors decide; a
    /// longer error body goes to the task without asking them (it is not retried).
    public static let maximumHeldBodyLength = 1024 * 1024

    /// The request the attempt sent (adapted; after redirects, the last hop's).
    public var request: URLRequest
    /// The response, when the attempt ended with one (a status of 400 or more); `nil` after a
    /// transport failure.
    public var response: HTTPURLResponse?
    /// The body of `response` as received.
    public var body: Data
    /// The transport's error (`URLError`), or `nil` when the attempt ended with `response`.
    public var error: (any Error)?
    /// The attempt that failed: 1 for the first.
    public var attempt: Int
    /// Whether any byte of a response arrived before a transport failure.
    public var receivedResponseBytes: Bool
    /// Whether a retry continues the body the task already received, with a `Range` request
    /// validated by `If-Range` (the response had a strong `ETag` or a `Last-Modified` and no
    /// content coding); if the server then sends anything but the rest, the task fails with
    /// `error`.
    public var canContinue: Bool
    /// Whether the attempt went on a connection an earlier request opened (a pooled
    /// connection the server may have closed meanwhile).
    public var isReusedConnection: Bool
    /// Whether the request body can be sent again: `false` for a one-shot `InputStream`.
    public var canReplayBody: Bool
    /// Seconds since the task was created.
    public var elapsed: TimeInterval

    /// A context; the transport makes them, tests and custom policies may too.
    public init(
        request: URLRequest, response: HTTPURLResponse? = nil, body: Data = Data(), error: (any Error)? = nil, attempt: Int,
        receivedResponseBytes: Bool = false, canContinue: Bool = false, isReusedConnection: Bool = false, canReplayBody: Bool = true, elapsed: TimeInterval = 0
    ) {
        self.request = request
        self.response = response
        self.body = body
        self.error = error
        self.attempt = attempt
        self.receivedResponseBytes = receivedResponseBytes
        self.canContinue = canContinue
        self.isReusedConnection = isReusedConnection
        self.canReplayBody = canReplayBody
        self.elapsed = elapsed
    }

    /// The `URLError` code of `error`, if it is one.
    public var urlErrorCode: URLError.Code? { (error as? URLError)?.code }
}
