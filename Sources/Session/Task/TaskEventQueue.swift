import AFLocking
import Foundation

/// A task's events waiting for its manager's delegate queue (`TaskEventDelivery`), handed to
/// it one at a time in the order they happened: one operation of the task is on the queue at
/// once, and it schedules the next when it ran. The order so holds however wide the queue is
/// (`operationQueue` is public, and a user may raise its `maxConcurrentOperationCount`), and
/// no task's backlog holds the queue while other tasks' events wait.
final class TaskEventQueue: Sendable {
    private struct Pending {
        var events: [@Sendable () -> Void] = []
        /// Whether an operation of the task is on the queue (it takes the next event).
        var scheduled = false
    }

    private let queue: OperationQueue
    private let pending = Locked(Pending())

    /// Events handed to `queue`.
    init(queue: OperationQueue) {
        self.queue = queue
    }

    /// Runs `event` on the queue after the events enqueued before it; from any thread.
    func enqueue(_ event: @escaping @Sendable () -> Void) {
        let schedules = pending.withLock { pending in
            pending.events.append(event)
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        if schedules { queue.addOperation { self.runNext() } }
    }

    /// Runs the oldest event, then schedules the next if there is one.
    private func runNext() {
        let event = pending.withLock { $0.events.removeFirst() }
        event()
        let more = pending.withLock { pending in
            pending.scheduled = !pending.events.isEmpty
            return pending.scheduled
        }
        if more { queue.addOperation { self.runNext() } }
    }
}
