#if Logging
import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// Logs every task of a manager to a swift-log `Logger`: a line at `trace` for each request
/// sent and each attempt's end, at `debug` for the completion, at `warning` for each retry and
/// for a redirect not followed; each with the task's request id (`afn-request-id`) in its
/// metadata. URLs and header values pass through `redaction` first: no secret reaches a line.
/// Set it as the manager's `instrumentation` (or in an `InstrumentationList`); a call may log
/// to its own logger instead (`URLSessionManager.data(for:credential:logger:)` and the other
/// methods taking `logger:`). Needs the `Logging` trait. Beyond AFNetworking
/// (`AFNetworkActivityLogger`, a separate project; after AsyncHTTPClient's `logger:`).
public struct LoggingInstrumentation: TaskInstrumentation {
    /// The key of the request id in each line's metadata.
    public static let requestIDKey = "afn-request-id"

    /// The logger of the manager's tasks, unless a call gives its own. Default: a logger that
    /// discards everything, so that only the calls given a logger log.
    public var logger: Logger
    /// What is hidden in URLs and headers. Default `Redaction()`.
    public var redaction: Redaction

    /// The logger of the tasks made inside a call that was given one.
    @TaskLocal static var callLogger: Logger?

    /// Logs to `logger` (default: nowhere) with `redaction`'s secrets hidden.
    public init(logger: Logger = Logger(label: "AFNetworking", factory: { _ in SwiftLogNoOpLogHandler() }), redaction: Redaction = Redaction()) {
        self.logger = logger
        self.redaction = redaction
    }

    /// The task's log: the call's logger or the manager's, with a new request id; `nil` when
    /// that logger's level is above `warning` (the default logger's is `critical`), which takes
    /// none of the task's lines.
    public func observer(for request: URLRequest) -> (any TaskObserver)? {
        var logger = Self.callLogger ?? logger
        guard logger.logLevel <= .warning else { return nil }
        logger[metadataKey: Self.requestIDKey] = "\(UUID().uuidString.lowercased())"
        return RequestLog(logger: logger, redaction: redaction)
    }
}
#endif
