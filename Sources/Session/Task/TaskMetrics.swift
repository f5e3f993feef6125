import Foundation

/// Timing and byte counts of one task. URLSession on Linux never reports
/// `URLSessionTaskMetrics`, so the manager measures these itself from delegate events.
/// AFNetworking passes `NSURLSessionTaskMetrics`.
public struct TaskMetrics: Sendable, Equatable {
    /// When the manager created the task.
    public var taskStart: Date
    /// When the final response's headers arrived; `nil` if none did.
    public var responseStart: Date?
    /// When the task completed.
    public var taskEnd: Date
    /// Request body bytes sent, as URLSession or the body stream counted them.
    public var countOfRequestBodyBytesSent: Int64
    /// Response body bytes received (of the final response).
    public var countOfResponseBodyBytesReceived: Int64
    /// Redirects followed or stopped on the way.
    public var redirectCount: Int
    /// Every request and response of the task, redirect hops first, with the time of each phase,
    /// the connection and the bytes; empty on URLSession's own protocol.
    /// `URLSessionTaskMetrics.transactionMetrics`.
    public var transactionMetrics: [TransactionMetrics] = []
    /// What the manager's `ResponseCache` did for the task. Default `.notUsed`.
    public var cacheOutcome: CacheOutcome = .notUsed

    /// The protocol of the last request, as ALPN names it: `http/1.1`, `http/1.0` or `h2`. `nil`
    /// when none was answered, and on URLSession's own protocol, which does not say.
    /// `URLSessionTaskTransactionMetrics.networkProtocolName`.
    public var networkProtocolName: String? { transactionMetrics.last?.networkProtocolName }

    /// How many attempts the task made: more than 1 after retries (`RequestInterceptor`). 1 on
    /// URLSession's own protocol.
    public var attemptCount: Int { transactionMetrics.last?.attempt ?? 1 }

    /// Seconds from `taskStart` to `taskEnd`.
    public var duration: TimeInterval { taskEnd.timeIntervalSince(taskStart) }
}
