import AFLocking
import AFTransport
import Dispatch
import Foundation

/// A clock that moves only when the test advances it: give it to a `StubTransport`
/// (`StubTransport(clock:)`), and the timeouts, retry waits and reply delays of the managers on
/// that transport run when `advance(by:)` passes their deadlines, never by themselves. A test
/// of a 30-second timeout then takes no time, and its timers cannot race the test's own steps.
///
/// ```swift
/// let clock = TestClock()
/// let stubs = StubTransport(clock: clock)
/// stubs.on("GET", "/slow").reply(StubReply.text("late").delayed(by: 30))
/// var request = URLRequest(url: URL(string: "https://api.example.com/slow")!)
/// request.timeoutInterval = 10
/// let task = try manager.dataTask(with: request) { _, _, error in /* idle timeout */ }
/// task.resume()
/// clock.advance(by: 10)   // the idle timeout ends the task
/// ```
///
/// `advance(by:)` first lets the transport finish what it was asked to do (a task's start, a
/// cancel), so that the timers those made are counted. Work that leaves the transport (an
/// interceptor deciding on a retry, a handler on a delegate queue) may still be running when it
/// returns: wait for what it leads to (the retry's notification, a request the stub recorded)
/// before advancing past a deadline it sets. Beyond AFNetworking.
public final class TestClock: TransportClock, @unchecked Sendable {
    // @unchecked: `state` is a `Locked`; a timer's body, which it holds, runs only on the
    // timer's queue (`queue.sync` in `advance(by:)`, or `queue.async` for a deadline passed).

    private struct Timer {
        let queue: DispatchQueue
        let body: () -> Void
        /// When it runs next, and the order it was scheduled in among timers due at once;
        /// `nil` while not scheduled.
        var due: (deadline: UInt64, order: Int)?
        /// Counts the timer's schedulings and cancels: a run picked before the latest of them
        /// (its `cancel` already queued on the timer's queue) does not happen.
        var generation = 0
    }

    private struct State {
        var now: UInt64
        var elapsed: UInt64 = 0
        var timers: [Int: Timer] = [:]
        var nextIdentifier = 0
        var nextOrder = 0
        /// The queues the transports on this clock run on.
        var queues: [DispatchQueue] = []
    }

    private let state = Locked(State(now: DispatchTime.now().uptimeNanoseconds))
    /// Held for a whole `advance(by:)`: advances from several threads take turns.
    private let advancing = Locked(())

    /// A clock at zero seconds elapsed.
    public init() {}

    /// The seconds the clock was advanced by since it was made.
    public var elapsed: TimeInterval {
        TimeInterval(state.withLock { $0.elapsed }) / 1_000_000_000
    }

    /// Moves the time forward by `seconds` (finite, not negative): each timer due by then runs
    /// at its deadline, in order of deadline (then of scheduling), on its transport's queue,
    /// with what it starts on that queue; returns when they ran. A timer scheduled for a time
    /// already passed runs at once, without an advance. Never call it on a transport's queue
    /// (in a stub's reply closure): it waits for that queue.
    public func advance(by seconds: TimeInterval) {
        precondition(seconds >= 0 && seconds.isFinite, "a clock advances by a finite, non-negative number of seconds")
        advancing.withLock { _ in
            // Past about 584 years of nanoseconds the time stays at its end.
            let step = seconds < 1.8e10 ? UInt64((seconds * 1_000_000_000).rounded()) : .max
            let target = state.withLock { state in
                let (sum, overflow) = state.now.addingReportingOverflow(step)
                return overflow ? .max : sum
            }
            settle()
            while let (queue, identifier, generation) = nextTimer(dueBy: target) {
                queue.sync { run(identifier, generation: generation) }
                settle()
            }
            state.withLock { state in
                state.elapsed += target - state.now
                state.now = target
            }
        }
    }

    /// The earliest timer due by `target`, unscheduled, with the time moved to its deadline.
    private func nextTimer(dueBy target: UInt64) -> (DispatchQueue, Int, Int)? {
        state.withLock { state in
            let due = state.timers.compactMap { identifier, timer in timer.due.map { (identifier, $0) } }
                .filter { $0.1.deadline <= target }
                .min { ($0.1.deadline, $0.1.order) < ($1.1.deadline, $1.1.order) }
            guard let (identifier, when) = due, let timer = state.timers[identifier] else { return nil }
            state.timers[identifier]?.due = nil
            if when.deadline > state.now {
                state.elapsed += when.deadline - state.now
                state.now = when.deadline
            }
            return (timer.queue, identifier, timer.generation)
        }
    }

    /// Runs the timer's body, on its queue, unless it was scheduled again or cancelled since
    /// this run was picked (or let go of).
    private func run(_ identifier: Int, generation: Int) {
        let body = state.withLock { state in
            state.timers[identifier].flatMap { $0.generation == generation ? $0.body : nil }
        }
        body?()
    }

    /// Waits until every transport on the clock has run what it was asked to before now.
    private func settle() {
        for queue in state.withLock({ $0.queues }) {
            dispatchPrecondition(condition: .notOnQueue(queue))
            queue.sync {}
        }
    }

    // MARK: TransportClock

    package func now() -> DispatchTime {
        DispatchTime(uptimeNanoseconds: state.withLock { $0.now })
    }

    package func makeTimer(on queue: DispatchQueue, _ body: @escaping () -> Void) -> any TransportTimer {
        let identifier = state.withLock { state in
            state.nextIdentifier += 1
            state.timers[state.nextIdentifier] = Timer(queue: queue, body: body)
            return state.nextIdentifier
        }
        return ManualTimer(clock: self, identifier: identifier)
    }

    package func runs(on queue: DispatchQueue) {
        state.withLock { state in
            if !state.queues.contains(where: { $0 === queue }) { state.queues.append(queue) }
        }
    }

    fileprivate func schedule(_ identifier: Int, at deadline: DispatchTime) {
        let runNow: (DispatchQueue, Int)? = state.withLock { state in
            guard var timer = state.timers[identifier] else { return nil }
            timer.generation += 1
            defer { state.timers[identifier] = timer }
            guard deadline.uptimeNanoseconds > state.now else {
                timer.due = nil
                return (timer.queue, timer.generation)
            }
            state.nextOrder += 1
            timer.due = (deadline.uptimeNanoseconds, state.nextOrder)
            return nil
        }
        guard let (queue, generation) = runNow else { return }
        queue.async { [weak self] in self?.run(identifier, generation: generation) }
    }

    fileprivate func cancel(_ identifier: Int) {
        state.withLock { state in
            state.timers[identifier]?.due = nil
            state.timers[identifier]?.generation += 1
        }
    }

    fileprivate func forget(_ identifier: Int) {
        // The body is released after the lock: it may hold the last reference to another
        // timer, whose own `forget` takes the lock.
        let removed = state.withLock { $0.timers.removeValue(forKey: identifier) }
        withExtendedLifetime(removed) {}
    }
}

/// A timer of a `TestClock`: scheduling and cancelling it change the clock's table, and the
/// clock forgets it when its owner lets it go.
private final class ManualTimer: TransportTimer {
    private let clock: TestClock
    private let identifier: Int

    init(clock: TestClock, identifier: Int) {
        self.clock = clock
        self.identifier = identifier
    }

    deinit {
        clock.forget(identifier)
    }

    func schedule(at deadline: DispatchTime) {
        clock.schedule(identifier, at: deadline)
    }

    func cancel() {
        clock.cancel(identifier)
    }
}
