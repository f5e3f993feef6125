import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Several instrumentations as one (logging, metrics and tracing together): each is asked for
/// its observer, in order, and the task's observers hear every event in that order, so that a
/// header one of them sets in `willSend(_:attempt:)` is seen by the next. Beyond AFNetworking.
public struct InstrumentationList: TaskInstrumentation {
    /// The instrumentations, in the order they hear events.
    public let instrumentations: [any TaskInstrumentation]

    /// `instrumentations` as one, in order.
    public init(_ instrumentations: [any TaskInstrumentation]) {
        self.instrumentations = instrumentations
    }

    /// The observers of the instrumentations that observe the task, as one; `nil` when none does.
    public func observer(for request: URLRequest) -> (any TaskObserver)? {
        // Room for every one at once: `compactMap`'s array grows (reallocated) as it goes, per task.
        var observers: [any TaskObserver] = []
        observers.reserveCapacity(instrumentations.count)
        for instrumentation in instrumentations {
            if let observer = instrumentation.observer(for: request) { observers.append(observer) }
        }
        return observers.isEmpty ? nil : Observers(observers: observers)
    }

    private struct Observers: TaskObserver {
        let observers: [any TaskObserver]

        func willSend(_ request: inout URLRequest, attempt: AttemptStart) {
            for observer in observers { observer.willSend(&request, attempt: attempt) }
        }

        func didEnd(_ end: AttemptEnd) {
            for observer in observers { observer.didEnd(end) }
        }

        func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
            for observer in observers { observer.didComplete(response: response, error: error, metrics: metrics) }
        }
    }
}
