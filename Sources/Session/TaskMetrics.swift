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

    /// Seconds from `taskStart` to `taskEnd`.
    public var duration: TimeInterval { taskEnd.timeIntervalSince(taskStart) }
}
