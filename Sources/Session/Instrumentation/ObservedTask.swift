import AFLocking
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task's `TaskObserver` and the attempt it is in, which the task's delegate keeps when the
/// manager has instrumentation: it turns the transport's events (each request sent, the
/// responses, each exchange's metrics, retries, the completion) into the observer's attempts.
final class ObservedTask: Sendable {
    /// The attempt in flight, from its request sent to its end.
    private struct Attempt {
        var start: AttemptStart
        var request: URLRequest
        var started: DispatchTime
        var response: HTTPURLResponse?
        /// What the end reports of the exchange's metrics, kept rather than the whole
        /// `TransactionMetrics` (a URL, dates and strings copied in and out of the lock).
        var exchange: Exchange?
    }

    /// The body byte counts and protocol of an attempt's exchange.
    private struct Exchange {
        var requestBodyBytes: Int64
        var responseBodyBytes: Int64
        var networkProtocolName: String?
    }

    private struct State {
        var attempt: Attempt?
        var sent = 0
        var completed = false
    }

    let observer: any TaskObserver
    private let state = Locked(State())

    init(observer: any TaskObserver) {
        self.observer = observer
    }

    /// A request of retry attempt `retryAttempt` is sent: the previous one (a redirect's) ends,
    /// and the observer may change `request`.
    func willSend(_ request: URLRequest, retryAttempt: Int, followsRedirect: Bool) -> URLRequest {
        let (previous, start) = state.withLock { state in
            let previous = state.attempt
            let start = AttemptStart(resendCount: state.sent, retryAttempt: retryAttempt, followsRedirect: followsRedirect)
            state.sent += 1
            state.attempt = nil
            return (previous, start)
        }
        if let previous { observer.didEnd(Self.end(of: previous, response: nil, error: nil, next: .redirect)) }
        var request = request
        observer.willSend(&request, attempt: start)
        state.withLock { $0.attempt = Attempt(start: start, request: request, started: .now()) }
        return request
    }

    /// The attempt's response arrived (a redirect's, or the one the task hands on).
    func received(_ response: HTTPURLResponse) {
        state.withLock { $0.attempt?.response = response }
    }

    /// The attempt's exchange ended with `transaction`'s byte counts and protocol.
    func finished(_ transaction: TransactionMetrics) {
        let exchange = Exchange(
            requestBodyBytes: transaction.countOfRequestBodyBytesSent, responseBodyBytes: transaction.countOfResponseBodyBytesReceived,
            networkProtocolName: transaction.networkProtocolName)
        state.withLock { $0.attempt?.exchange = exchange }
    }

    /// The attempt `context` describes failed and is retried after `delay`.
    func willRetry(_ context: RetryContext, after delay: TimeInterval) {
        guard let attempt = state.withLock({ state in defer { state.attempt = nil }; return state.attempt }) else { return }
        observer.didEnd(Self.end(of: attempt, response: context.response, error: context.error, next: .retry(after: delay)))
    }

    /// The task completed: its last attempt ends, then the observer hears the completion (once).
    func completed(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
        let (attempt, first) = state.withLock { state in
            defer { (state.attempt, state.completed) = (nil, true) }
            return (state.attempt, !state.completed)
        }
        guard first else { return }
        if let attempt {
            // Without any exchange measured (URLSession's own protocol), the task's counts are the attempt's.
            let counts = metrics.transactionMetrics.isEmpty ? metrics : nil
            observer.didEnd(Self.end(of: attempt, response: response, error: error, next: .completion, metrics: counts))
        }
        observer.didComplete(response: response, error: error, metrics: metrics)
    }

    /// The end of `attempt`; its byte counts are its exchange's, or without one the task's
    /// `metrics`, when given.
    private static func end(
        of attempt: Attempt, response: HTTPURLResponse?, error: (any Error)?, next: AttemptEnd.Next, metrics: TaskMetrics? = nil
    ) -> AttemptEnd {
        let elapsed = DispatchTime.now().uptimeNanoseconds - attempt.started.uptimeNanoseconds
        return AttemptEnd(
            attempt: attempt.start, request: attempt.request, response: response ?? attempt.response, error: error, next: next,
            requestBodyBytes: attempt.exchange?.requestBodyBytes ?? metrics?.countOfRequestBodyBytesSent ?? 0,
            responseBodyBytes: attempt.exchange?.responseBodyBytes ?? metrics?.countOfResponseBodyBytesReceived ?? 0,
            networkProtocolName: attempt.exchange?.networkProtocolName, duration: TimeInterval(elapsed) / 1_000_000_000)
    }
}
