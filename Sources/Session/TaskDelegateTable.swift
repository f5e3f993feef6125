import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The lock-protected map from task to `TaskDelegate`. An entry is added before a task is
/// handed out and removed exactly once, when the task completes.
///
/// Keyed by the task's object identity rather than `taskIdentifier`, which restarts at 1 in
/// every session and so repeats after `invalidateSession(cancelingTasks:resetSession:)`. The
/// delegate holds its task, so the identity cannot be reused while the entry exists.
final class TaskDelegateTable: Sendable {
    private let delegates = Locked<[ObjectIdentifier: TaskDelegate]>([:])

    func insert(_ delegate: TaskDelegate) {
        delegates.withLock { $0[ObjectIdentifier(delegate.task)] = delegate }
    }

    func delegate(for task: URLSessionTask) -> TaskDelegate? {
        delegates.withLock { $0[ObjectIdentifier(task)] }
    }

    /// Removes and returns the entry; `nil` if it was already removed.
    func remove(_ task: URLSessionTask) -> TaskDelegate? {
        delegates.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
    }

    var all: [TaskDelegate] { delegates.withLock { Array($0.values) } }

    var count: Int { delegates.withLock { $0.count } }
}
