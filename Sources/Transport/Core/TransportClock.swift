import Dispatch

/// Where a transport reads the time and runs its timers: the task's idle and total timeouts,
/// a retry's wait, a stub's delays. The system's (`SystemClock`) for every transport; a test's
/// (`AFNetworkingTesting`'s `TestClock`, given to its `StubTransport`) makes them run when the
/// test advances it, so a test of a 30-second timeout takes no time and cannot race a timer.
/// libcurl's own timer keeps the system's time: a stubbed transport has no libcurl.
package protocol TransportClock: AnyObject, Sendable {
    /// The time now, on a monotonic scale.
    func now() -> DispatchTime
    /// A timer that runs `body` on `queue` once at each deadline it is scheduled for, until
    /// cancelled; `body` runs on `queue` only.
    func makeTimer(on queue: DispatchQueue, _ body: @escaping () -> Void) -> any TransportTimer
    /// The transport runs its work on `queue`: a test's clock lets that work settle before it
    /// decides which timers are due.
    func runs(on queue: DispatchQueue)
}

/// A timer of a `TransportClock`; its owner keeps it on the transport's queue.
package protocol TransportTimer: AnyObject {
    /// Runs the timer's body at `deadline` (at once when it has passed), in place of any
    /// deadline set before.
    func schedule(at deadline: DispatchTime)
    /// The body never runs again.
    func cancel()
}

extension TransportClock {
    /// Seconds from `start` to now; 0 for a `start` after now.
    package func seconds(since start: DispatchTime) -> Double {
        let (now, start) = (now().uptimeNanoseconds, start.uptimeNanoseconds)
        return now > start ? Double(now - start) / 1_000_000_000 : 0
    }
}
