import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The attempt and retry loop: the interceptors adapt each attempt's request and decide on
/// each failed one, off the transport's queue; their answers come back as state machine
/// events. And the idle timeout, which fails an attempt.
extension CurlTransfer {
    /// Has the interceptors adapt the request of attempt `attempt`.
    func adapt(attempt: Int) {
        guard let interceptor = options.interceptor else { return perform(machine.adapted(failure: nil)) }
        let request = events?.transfer(requestForAttempt: attempt, from: originalRequest) ?? originalRequest
        keep(.interceptors(Task { [weak self, transport] in
            let adapted: Result<URLRequest, any Error>
            do {
                adapted = .success(try await interceptor.adapt(request, attempt: attempt))
            } catch {
                adapted = .failure(error)
            }
            guard !Task.isCancelled else { return }
            transport.async { [weak self] in self?.adapted(adapted) }
        }))
    }

    /// On the transport's queue: the interceptors adapted the attempt's request, or failed the task.
    private func adapted(_ adapted: Result<URLRequest, any Error>) {
        guard !machine.isEnded else { return }
        switch adapted {
        case .success(let adapted):
            request = bodyContinuation.request(adapted)
            body = Self.body(of: adapted, previous: body, reader: bodyReader)
            perform(machine.adapted(failure: nil))
        case .failure(let error):
            perform(machine.adapted(failure: error))
        }
    }

    /// Whether the request body can be sent again: not a stream already read that cannot start
    /// over.
    var canReplayBody: Bool {
        if case .stream(let stream, consumed: true) = body { return (stream as? any ReplayableBodyStream)?.isRewindable ?? false }
        return true
    }

    /// Whether a redirect can send the request body again: data and files can, a stream only
    /// when it can start over.
    var resendsBody: Bool {
        if case .stream(let stream, _) = body { return (stream as? any ReplayableBodyStream)?.isRewindable ?? false }
        return true
    }

    /// The continuation of the response delivered to the client, when its body was cut.
    var rangeContinuation: RangeContinuation? {
        guard machine.responseDelivered, let response = hop.response else { return nil }
        return RangeContinuation(response: response, delivered: hop.decodedBodyBytes)
    }

    /// Asks the interceptors about attempt `attempt`, which ended as `outcome` says.
    func decide(attempt: Int, _ outcome: StateMachine.Outcome) {
        guard let interceptor = options.interceptor else { return perform(machine.decided(.conclude)) }
        let range = rangeContinuation
        bodyContinuation.attemptEnded(range: range, failure: outcome.failure, delivered: hop.decodedBodyBytes)
        let context = RetryContext(
            request: request, response: outcome.held?.response, body: outcome.held?.body ?? Data(), error: outcome.failure,
            attempt: attempt, receivedResponseBytes: hop.receivedResponseBytes, canContinue: range != nil,
            isReusedConnection: lastHopReusedConnection, canReplayBody: canReplayBody, elapsed: seconds(since: transferStart))
        keep(.interceptors(Task { [weak self, transport] in
            let decision = await interceptor.retry(context)
            guard !Task.isCancelled else { return }
            transport.async { [weak self] in self?.decided(decision, context: context) }
        }))
    }

    /// On the transport's queue: the interceptors decided on the failed attempt `context`.
    private func decided(_ decision: RetryDecision, context: RetryContext) {
        let replayable = !decision.retries || canReplayBody
        let event: StateMachine.Decision = switch decision {
        case _ where !replayable: .fail(RetryError.bodyCannotBeReplayed(underlying: context.error ?? Self.retriedStatus(context)))
        case .retry: .retry(after: 0)
        case .retryAfter(let delay): .retry(after: delay)
        case .doNotRetry: .conclude
        case .fail(let failure): .fail(failure)
        }
        let action = machine.decided(event)
        if case .scheduleRetry(let delay) = action { events?.transfer(willRetry: context, after: delay) }
        perform(action)
    }

    /// Why an attempt whose response an interceptor retried was not retried: its body cannot be
    /// sent again. The status response is not handed on as if it had been accepted.
    static func retriedStatus(_ context: RetryContext) -> URLError {
        let status = context.response.map { "the \($0.statusCode) response" } ?? "the response"
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "An interceptor retried \(status), but the request body cannot be sent again."]
        userInfo[NSURLErrorFailingURLErrorKey] = context.request.url
        return URLError(.requestBodyStreamExhausted, userInfo: userInfo)
    }

    // MARK: Idle timeout

    /// libcurl has no idle timeout finer than a second (its low-speed limit), so the transport
    /// keeps one timer for its transfers, which checks each against `lastActivity` (updated by
    /// the callbacks). Only libcurl's hops have it, and so only the system's clock, which its
    /// dispatch timer shares (a stubbed transport, the only one with a test's clock, watches
    /// its hops itself).
    func startIdleTimer() {
        lastActivity = transport.clock.now()
        if let idle = timeouts.idle { transport.watchIdle(until: lastActivity + idle) }
    }

    /// From the transport's idle timer: fails the attempt when it has been idle for the idle
    /// timeout, or returns when it may be next. A transfer paused for its consumer is not idle.
    func checkIdle() -> DispatchTime? {
        guard let easy, let idle = timeouts.idle else { return nil }
        let idleFor = seconds(since: lastActivity)
        guard idleFor >= idle, !receiveFlow.isPaused else {
            return transport.clock.now() + (receiveFlow.isPaused ? idle : idle - idleFor)
        }
        transport.remove(easy)
        releaseHandle()
        perform(machine.attemptFailed(timeouts.error(.idle, url: request.url)))
        return nil
    }
}
