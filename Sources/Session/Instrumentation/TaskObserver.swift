import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a `TaskInstrumentation` hears of one task: each attempt as it is sent (with the
/// request, which it may change, to add propagation headers), each attempt's end, then the
/// completion. An attempt is one request sent: the first, each redirect followed and each
/// retry its interceptors decided, each ended before the next starts. Called in order,
/// synchronously, on the queue where the task's events happen (its transport's): quick work
/// only, never waiting for the manager nor making a task. On URLSession's own protocol
/// (`.urlSession`, which reports no hop) the task is one attempt, its redirects inside it: its
/// request is sent as the task is made (under the manager's lock), and it ends at the
/// completion with the task's body byte counts. A task its `ResponseCache` answers without the
/// network sends no request: only `didComplete(response:error:metrics:)` is called. Beyond
/// AFNetworking.
public protocol TaskObserver: Sendable {
    /// Attempt `attempt` is about to send `request`, after the interceptors adapted it; header
    /// fields set here are sent.
    func willSend(_ request: inout URLRequest, attempt: AttemptStart)
    /// The attempt `end` describes ended: answered (a redirect followed, a response retried or
    /// the final one) or failed.
    func didEnd(_ end: AttemptEnd)
    /// The task completed with `response` (its final one, if any) and `error` (`nil` for
    /// success; a response serializer's error comes later and is not seen here), after the end
    /// of its last attempt.
    func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics)
}
