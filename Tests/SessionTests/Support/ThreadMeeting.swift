import Foundation
import Synchronization

/// Two threads meeting before each step of a race, so that their next calls start together:
/// each spins on the other's count (atomics, so that neither sleeps on a lock and both leave
/// at once), yielding only once the other seems descheduled.
final class ThreadMeeting: Sendable {
    private let first = Atomic<Int>(0)
    private let second = Atomic<Int>(0)

    /// Thread `thread` (0 or 1) reached meeting `number` (1, 2, ...); returns once the other
    /// thread reached it too.
    func meet(_ number: Int, as thread: Int) {
        if thread == 0 { first.store(number, ordering: .releasing) } else { second.store(number, ordering: .releasing) }
        var spins = 0
        while (thread == 0 ? second.load(ordering: .acquiring) : first.load(ordering: .acquiring)) < number {
            spins += 1
            if spins > 1000 { sched_yield() }
        }
    }
}
