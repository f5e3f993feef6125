import Foundation

/// What a `RequestInterceptor` decides about a failed attempt.
public enum RetryDecision: Sendable {
    /// The attempt's outcome stands: its error, or its response, completes the task.
    case doNotRetry
    /// Send the request again now.
    case retry
    /// Send the request again after the given seconds; cancelling the task cancels the wait.
    case retryAfter(TimeInterval)
    /// Complete the task with `error` instead of the attempt's outcome.
    case fail(any Error)

    /// Whether the decision sends the request again.
    public var retries: Bool {
        switch self {
        case .retry, .retryAfter: return true
        case .doNotRetry, .fail: return false
        }
    }
}
