import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Closures that replace or observe the manager's handling of URLSession delegate events,
/// AFNetworking's `set...Block:` methods. Each runs on the manager's delegate queue
/// (`operationQueue`), in the task's order of events, except on the libcurl transport the
/// blocks of the sending side (a redirect's or a credential's decision, upload progress), which
/// run on the transport's queue as the request goes out and must return quickly. The transport
/// does not wait for the delegate queue: a slow block pauses its own task's reading (at most
/// 1 MiB of its body waits), never the manager's other tasks. Set them before making tasks:
/// each task reads them when it is made.
///
/// Not offered, because URLSession on Linux never raises the event (measured): session-level
/// authentication challenges (there is no server-trust challenge), `needNewBodyStream`, and a
/// data task becoming a download task. `willCacheResponse` is the manager's own
/// (`dataTaskWillCacheResponse`, for its `ResponseCache`).
public struct SessionDelegateOverrides: Sendable {
    /// Called when the session became invalid. AFNetworking: `setSessionDidBecomeInvalidBlock:`.
    public var sessionDidBecomeInvalid: (@Sendable (URLSession, (any Error)?) -> Void)?

    /// Answers a task's credential challenge instead of the manager. An answer of
    /// `.useCredential` with a `nil` credential is refused for you (URLSession on Linux
    /// crashes on it): the task then fails with `SessionError.authenticationRequired`.
    /// AFNetworking: `setAuthenticationChallengeHandler:`.
    public var taskDidReceiveAuthenticationChallenge:
        (@Sendable (URLSession, URLSessionTask, URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?))?

    /// Chooses the request for a redirect; `nil` stops at the redirect response. A 307 or 308
    /// of a request with a body is stopped before this is asked (see `SessionError.redirectWouldDropBody`).
    /// AFNetworking: `setTaskWillPerformHTTPRedirectionBlock:`.
    public var taskWillPerformHTTPRedirection: (@Sendable (URLSession, URLSessionTask, HTTPURLResponse, URLRequest) -> URLRequest?)?

    /// Observes upload progress: bytes sent, total sent, total expected.
    /// AFNetworking: `setTaskDidSendBodyDataBlock:`.
    public var taskDidSendBodyData: (@Sendable (URLSession, URLSessionTask, Int64, Int64, Int64) -> Void)?

    /// Observes completion with the error the task's handler will get (before serialization).
    /// AFNetworking: `setTaskDidCompleteBlock:`.
    public var taskDidComplete: (@Sendable (URLSession, URLSessionTask, (any Error)?) -> Void)?

    /// Receives the task's metrics. AFNetworking: `setTaskDidFinishCollectingMetricsBlock:`.
    public var taskDidFinishCollectingMetrics: (@Sendable (URLSession, URLSessionTask, TaskMetrics) -> Void)?

    /// Decides whether a response's body is loaded. `.cancel` cancels the task (URLSession on
    /// Linux ignores it and keeps loading). AFNetworking: `setDataTaskDidReceiveResponseBlock:`.
    public var dataTaskDidReceiveResponse: (@Sendable (URLSession, URLSessionDataTask, URLResponse) -> URLSession.ResponseDisposition)?

    /// Changes or refuses (`nil`) a response before the manager's `responseCache` stores it:
    /// one from the network, or a stored one a `304` updated. Runs on the delegate queue when
    /// the task completes. Default `nil`: every storable response is stored as it is.
    /// AFNetworking: `setDataTaskWillCacheResponseBlock:`.
    public var dataTaskWillCacheResponse: (@Sendable (URLSession, URLSessionDataTask, CachedURLResponse) -> CachedURLResponse?)?

    /// Observes each chunk of a data or upload task's body (not of downloads).
    /// AFNetworking: `setDataTaskDidReceiveDataBlock:`.
    public var dataTaskDidReceiveData: (@Sendable (URLSession, URLSessionDataTask, Data) -> Void)?

    /// The destination of downloads created without one; `nil` discards the body. Receives the
    /// file the body was written to. AFNetworking: `setDownloadTaskDidFinishDownloadingBlock:`.
    public var downloadTaskDidFinishDownloading: (@Sendable (URLSession, URLSessionTask, URL) -> URL?)?

    /// Observes download progress: bytes written now, total written, total expected (-1 when
    /// unknown). AFNetworking: `setDownloadTaskDidWriteDataBlock:`.
    public var downloadTaskDidWriteData: (@Sendable (URLSession, URLSessionTask, Int64, Int64, Int64) -> Void)?

    /// Called when a resumed download continues: the offset it continues from and the total
    /// expected. AFNetworking: `setDownloadTaskDidResumeBlock:`.
    public var downloadTaskDidResume: (@Sendable (URLSession, URLSessionTask, Int64, Int64) -> Void)?

    /// No overrides: the manager's own handling.
    public init() {}
}
