import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hears what happens to every task of a manager, for logging and tracing: creation, each
/// attempt sent (with the adapted request), the response, each retry scheduled, and the
/// completion with metrics. Events of one task arrive in order on `queue`. Every method does
/// nothing by default. Attempts and retries are reported on the libcurl transport (URLSession's
/// own protocol reports creation, response and completion). Set them with
/// `URLSessionManager.eventMonitors`. Beyond AFNetworking (Alamofire's `EventMonitor`).
public protocol EventMonitor: Sendable {
    /// Where the events are delivered; a serial queue keeps each task's events in order.
    var queue: DispatchQueue { get }

    /// The manager created `task` for `request`.
    func taskCreated(_ task: URLSessionTask, request: URLRequest)
    /// Attempt `attempt` (1 for the first) of `task` is sent as `request`, after the
    /// interceptors adapted it.
    func task(_ task: URLSessionTask, willSend request: URLRequest, attempt: Int)
    /// `task` received its response (the one it completes with: not a redirect, nor an error
    /// response retried).
    func task(_ task: URLSessionTask, didReceive response: HTTPURLResponse)
    /// The attempt `context` describes failed and is retried after `delay` seconds.
    func task(_ task: URLSessionTask, willRetry context: RetryContext, after delay: TimeInterval)
    /// `task` completed with `error` (`nil` for success), after `metrics.attemptCount` attempts.
    func task(_ task: URLSessionTask, didCompleteWith response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics)
    /// The manager's `.libcurl` transport cannot be used on this system (`error` says why: a
    /// libcurl built on GnuTLS, an OpenSSL other than libcurl's, a libcurl too old), so its
    /// tasks go through URLSession's own protocol instead; a manager whose policy or settings
    /// need libcurl refuses to send rather than fall back. Told once per manager, before the
    /// first task that falls back is created.
    func libcurlTransportUnavailable(_ error: TransportError)
}

/// Every event does nothing unless a monitor implements it.
extension EventMonitor {
    /// Does nothing.
    public func taskCreated(_ task: URLSessionTask, request: URLRequest) {}
    /// Does nothing.
    public func task(_ task: URLSessionTask, willSend request: URLRequest, attempt: Int) {}
    /// Does nothing.
    public func task(_ task: URLSessionTask, didReceive response: HTTPURLResponse) {}
    /// Does nothing.
    public func task(_ task: URLSessionTask, willRetry context: RetryContext, after delay: TimeInterval) {}
    /// Does nothing.
    public func task(_ task: URLSessionTask, didCompleteWith response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {}
    /// Does nothing.
    public func libcurlTransportUnavailable(_ error: TransportError) {}
}

extension Array where Element == any EventMonitor {
    /// Calls `event` for each monitor on its queue.
    func notify(_ event: @escaping @Sendable (any EventMonitor) -> Void) {
        for monitor in self { monitor.queue.async { event(monitor) } }
    }
}
