import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The lock-protected map from task to `TaskDelegate`. An entry is added before a task is
/// handed out and removed exactly once, when the task completes. While it has entries the
/// table holds its manager, so that a manager nobody else references completes its tasks
/// before it is freed.
///
/// Keyed by the task's object identity rather than `taskIdentifier`, which restarts at 1 in
/// every session and so repeats after `invalidateSession(cancelingTasks:resetSession:)`. The
/// delegate holds its task, so the identity cannot be reused while the entry exists.
final class TaskDelegateTable: Sendable {
    private struct Entries {
        var delegates: [ObjectIdentifier: TaskDelegate] = [:]
        /// The manager, held while `delegates` is not empty.
        var owner: URLSessionManager?
    }

    private let entries = Locked(Entries())

    /// Adds `delegate`, holding `owner` until the table is empty again.
    func insert(_ delegate: TaskDelegate, keepingAlive owner: URLSessionManager) {
        entries.withLock {
            $0.delegates[ObjectIdentifier(delegate.task)] = delegate
            $0.owner = owner
        }
    }

    func delegate(for task: URLSessionTask) -> TaskDelegate? {
        entries.withLock { $0.delegates[ObjectIdentifier(task)] }
    }

    /// Removes and returns the entry; `nil` if it was already removed.
    func remove(_ task: URLSessionTask) -> TaskDelegate? {
        let (delegate, releasedOwner): (TaskDelegate?, URLSessionManager?) = entries.withLock { entries in
            let delegate = entries.delegates.removeValue(forKey: ObjectIdentifier(task))
            guard entries.delegates.isEmpty else { return (delegate, nil) }
            defer { entries.owner = nil }
            return (delegate, entries.owner)
        }
        // The manager may be freed here: outside the lock, which its deinit destroys.
        withExtendedLifetime(releasedOwner) {}
        return delegate
    }

    var all: [TaskDelegate] { entries.withLock { Array($0.delegates.values) } }
}
