import AFLocking
import AFNetworkingTesting
import AFTransport
import Dispatch
import Foundation
import XCTest

/// A `TestClock` driven from several queues at once while the test advances it: every timer
/// runs once, on its queue, never before its deadline, and never after it was cancelled there.
/// Run under the thread sanitizer by `scripts/test.sh`.
final class TestClockConcurrencyTests: XCTestCase {
    /// What one queue's timers did, touched only on that queue.
    private final class QueueTimers: @unchecked Sendable {
        // @unchecked: every field is touched only on `queue`.
        let queue: DispatchQueue
        var timers: [Int: any TransportTimer] = [:]
        var cancelled: Set<Int> = []
        var fired: [Int: Int] = [:]
        var early: [Int] = []
        var firedAfterCancel: [Int] = []

        init(_ index: Int) {
            queue = DispatchQueue(label: "TestClockConcurrencyTests.\(index)")
        }
    }

    func testTimersScheduledAndCancelledFromFourQueuesWhileAdvancingRunOnceAtOrAfterTheirDeadlines() {
        let clock = TestClock()
        let start = clock.now()
        let queues = (0..<4).map(QueueTimers.init)
        for timers in queues { clock.runs(on: timers.queue) }
        var generator = SystemRandomNumberGenerator()
        let perQueue = 250
        for timers in queues {
            for index in 0..<perQueue {
                let nanoseconds = UInt64.random(in: 0...10_000_000_000, using: &generator)
                let cancels = Bool.random(using: &generator)
                timers.queue.async {
                    let deadline = DispatchTime(uptimeNanoseconds: start.uptimeNanoseconds + nanoseconds)
                    let timer = clock.makeTimer(on: timers.queue) {
                        dispatchPrecondition(condition: .onQueue(timers.queue))
                        timers.fired[index, default: 0] += 1
                        if clock.now() < deadline { timers.early.append(index) }
                        if timers.cancelled.contains(index) { timers.firedAfterCancel.append(index) }
                    }
                    timers.timers[index] = timer
                    timer.schedule(at: deadline)
                    if cancels {
                        // Later on the same queue: the timer may have run by then, or not at all.
                        timers.queue.async {
                            timers.cancelled.insert(index)
                            timers.timers[index]?.cancel()
                        }
                    }
                }
            }
        }
        for _ in 0..<40 { clock.advance(by: 0.25) }
        clock.advance(by: 0)
        for timers in queues {
            timers.queue.sync {
                XCTAssertEqual(timers.early, [], "ran before its deadline")
                XCTAssertEqual(timers.firedAfterCancel, [], "ran after it was cancelled")
                XCTAssertTrue(timers.fired.values.allSatisfy { $0 == 1 }, "a timer ran twice")
                let missed = (0..<perQueue).filter { timers.fired[$0] == nil && !timers.cancelled.contains($0) }
                XCTAssertEqual(missed, [], "never ran, not cancelled")
            }
        }
        XCTAssertEqual(clock.elapsed, 10, accuracy: 1e-9)
    }
}
