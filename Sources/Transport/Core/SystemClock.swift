import Dispatch

/// The system's monotonic time, and dispatch timers: the clock of every transport that no
/// test clock drives.
package final class SystemClock: TransportClock {
    /// The one system clock.
    package static let shared = SystemClock()

    private init() {}

    package func now() -> DispatchTime { .now() }

    package func makeTimer(on queue: DispatchQueue, _ body: @escaping () -> Void) -> any TransportTimer {
        DispatchTimer(queue: queue, body)
    }

    package func runs(on queue: DispatchQueue) {}
}

/// A dispatch timer source, resumed once when made.
private final class DispatchTimer: TransportTimer {
    private let source: any DispatchSourceTimer

    init(queue: DispatchQueue, _ body: @escaping () -> Void) {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler(handler: body)
        source.resume()
    }

    func schedule(at deadline: DispatchTime) {
        source.schedule(deadline: deadline)
    }

    func cancel() {
        source.cancel()
    }
}
