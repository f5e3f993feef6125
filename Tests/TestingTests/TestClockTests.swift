import AFLocking
import AFNetworking
import AFNetworkingTesting
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The clock a test advances: its timers run at their deadlines, in order, only when it is
/// advanced; and a manager on a stub transport with it runs its timeouts and delays on it.
final class TestClockTests: XCTestCase {
    private let clock = TestClock()
    private let queue = DispatchQueue(label: "TestClockTests")
    /// What the timers' bodies saw: their name and the clock's time then, in seconds.
    private let log = Locked<[(String, Double)]>([])

    override func setUp() {
        super.setUp()
        clock.runs(on: queue)
    }

    /// A timer that logs `name` with the time it runs at, scheduled `after` seconds from now.
    private func timer(_ name: String, after seconds: Double) -> any TransportTimer {
        Self.timer(name, after: seconds, clock: clock, queue: queue, log: log)
    }

    private static func timer(
        _ name: String, after seconds: Double, clock: TestClock, queue: DispatchQueue, log: Locked<[(String, Double)]>
    ) -> any TransportTimer {
        let start = clock.now()
        let timer = clock.makeTimer(on: queue) {
            dispatchPrecondition(condition: .onQueue(queue))
            log.withLock { $0.append((name, clock.seconds(since: start))) }
        }
        timer.schedule(at: start + seconds)
        return timer
    }

    private var logged: [String] { log.withLock { $0.map(\.0) } }
    private var times: [Double] { log.withLock { $0.map(\.1) } }

    func testATimerRunsAtItsDeadlineAndNotBefore() {
        let kept = timer("a", after: 10)
        clock.advance(by: 9.999)
        XCTAssertEqual(logged, [])
        clock.advance(by: 0.001)
        XCTAssertEqual(logged, ["a"])
        XCTAssertEqual(times, [10])
        withExtendedLifetime(kept) {}
    }

    func testTimersRunInTheOrderOfTheirDeadlinesEachAtItsOwn() {
        let kept = [timer("late", after: 3), timer("early", after: 1), timer("middle", after: 2)]
        clock.advance(by: 5)
        XCTAssertEqual(logged, ["early", "middle", "late"])
        XCTAssertEqual(times, [1, 2, 3])
        XCTAssertEqual(clock.elapsed, 5)
        withExtendedLifetime(kept) {}
    }

    func testTimersDueAtOnceRunInTheOrderTheyWereScheduled() {
        let kept = [timer("first", after: 1), timer("second", after: 1)]
        clock.advance(by: 1)
        XCTAssertEqual(logged, ["first", "second"])
        withExtendedLifetime(kept) {}
    }

    func testACancelledTimerNeverRuns() {
        let cancelled = timer("cancelled", after: 1)
        let kept = timer("kept", after: 1)
        cancelled.cancel()
        clock.advance(by: 2)
        XCTAssertEqual(logged, ["kept"])
        withExtendedLifetime((cancelled, kept)) {}
    }

    func testATimerScheduledForATimePassedRunsAtOnceWithoutAnAdvance() {
        let done = expectation(description: "ran")
        let now = clock.makeTimer(on: queue) { [log] in
            log.withLock { $0.append(("now", 0)) }
            done.fulfill()
        }
        now.schedule(at: clock.now())
        wait(for: [done], timeout: 5)
        XCTAssertEqual(logged, ["now"])
        XCTAssertEqual(clock.elapsed, 0)
        withExtendedLifetime(now) {}
    }

    func testATimerLetGoOfNeverRuns() {
        _ = timer("dropped", after: 1)
        clock.advance(by: 2)
        XCTAssertEqual(logged, [])
    }

    func testSchedulingAgainReplacesTheDeadline() {
        let start = clock.now()
        let moved = timer("moved", after: 1)
        moved.schedule(at: start + 3)
        clock.advance(by: 2)
        XCTAssertEqual(logged, [])
        clock.advance(by: 1)
        XCTAssertEqual(logged, ["moved"])
        XCTAssertEqual(times, [3])
        withExtendedLifetime(moved) {}
    }

    func testATimerScheduledByAnotherWithinTheAdvanceRunsInIt() {
        let chained = Locked<(any TransportTimer)?>(nil)
        let first = clock.makeTimer(on: queue) { [self] in
            log.withLock { $0.append(("first", 0)) }
            chained.withLock { $0 = timer("second", after: 1) }
        }
        first.schedule(at: clock.now() + 1)
        clock.advance(by: 2)
        XCTAssertEqual(logged, ["first", "second"])
        XCTAssertEqual(times, [0, 1])
        XCTAssertEqual(clock.elapsed, 2)
        withExtendedLifetime(first) {}
    }

    func testAdvancingFirstLetsTheQueueFinishWhatItWasAskedTo() {
        // Work queued before the advance (a task's start) makes its timers first.
        let made = Locked<(any TransportTimer)?>(nil)
        queue.async { [clock, queue, log] in
            made.withLock { $0 = Self.timer("made on the queue", after: 1, clock: clock, queue: queue, log: log) }
        }
        clock.advance(by: 1)
        XCTAssertEqual(logged, ["made on the queue"])
    }

    func testADelayedStubReplyArrivesWhenTheClockPassesItsDelay() throws {
        let stubs = StubTransport(clock: clock)
        stubs.on("GET", "/later").reply(StubReply.text("now").delayed(by: 3_600))
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let done = expectation(description: "completed")
        let body = Locked<String?>(nil)
        var request = URLRequest(url: URL(string: "https://api.example.com/later")!)
        request.timeoutInterval = 7_200
        let task = try manager.dataTask(with: request) { _, object, _ in
            body.withLock { $0 = (object as? Data).map { String(decoding: $0, as: UTF8.self) } }
            done.fulfill()
        }
        task.resume()
        clock.advance(by: 3_599)
        XCTAssertEqual(task.state, .running)
        clock.advance(by: 1)
        wait(for: [done], timeout: 5)
        XCTAssertEqual(body.withLock { $0 }, "now")
    }
}
