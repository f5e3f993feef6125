import Foundation

/// The lifecycle of one transfer, as a value its `CurlTransfer` owns: attempts (adapted by the
/// task's interceptors when it has any), the hops of each attempt (redirects, a Basic retry),
/// the error response held back while the interceptors decide, the wait before a retry, and the
/// end. Each phase carries its data; each event returns what the transfer must do. The end is
/// known here alone (`isEnded`), and at most one of `finish`, `fail`, `conclude` and `reject` is
/// ever returned. An event the transfer sequences itself (the start, the interceptors' answers,
/// the retry timer, a hop's end) reaching a phase that cannot receive it is rejected (`reject`);
/// after the end, where a cancellation can race it, it does nothing. Pure: tested without a
/// server and fuzzed (`Tests/Fuzz/TransferState`).
///
/// Generic over the request and response so that its tests and fuzzer need no Foundation
/// networking types; `Failure` is what a failed attempt reports (a `URLError` in the transport);
/// `Work` is what runs between hops (the interceptors' task, the retry timer), kept by the phase
/// it runs in and handed back to be cancelled when the task is.
struct TransferStateMachine<Request, Response, Failure: Error, Work> {
    /// An error response held back from the client, with the body received so far and, once
    /// it ended, its trailer fields (by name).
    struct Held {
        var response: Response
        var body: Data
        var trailers: [String: String]?
    }

    /// How an attempt ended, for the interceptors: the held response (if any) and the
    /// failure (`nil` when it ended with a held response whose body is whole).
    struct Outcome {
        var held: Held?
        var failure: Failure?
    }

    /// One attempt: its number (from 1) and whether its one Basic retry was made.
    struct Attempt: Equatable {
        var number: Int
        var authenticationAttempted = false
    }

    /// Where the running hop's head and body go.
    enum Hop {
        /// To the client.
        case delivering
        /// Nowhere: the head asked for `next` (a redirect or a Basic retry), which starts when
        /// the hop ends.
        case awaitingNextHop(next: Request)
        /// Into `Held`, until the interceptors decide.
        case holding(Held)
    }

    enum Phase {
        /// Made; nothing started.
        case initialized
        /// The interceptors are adapting the attempt's request (`Work`, once begun).
        case adapting(Attempt, Work?)
        /// A hop of the attempt runs on a handle.
        case running(Attempt, Hop)
        /// The attempt ended as `Outcome` says; the interceptors decide whether it is retried.
        case deciding(Attempt, Outcome, Work?)
        /// A retry was decided: attempt `next` starts when the timer (`Work`) fires.
        case waitingToRetry(next: Int, Work?)
        /// The client was told the end, or the task was cancelled: nothing more happens.
        case ended

        /// The phase's name, for `TransferStateError`.
        var name: String {
            switch self {
            case .initialized: "initialized"
            case .adapting: "adapting"
            case .running: "running"
            case .deciding: "deciding"
            case .waitingToRetry: "waitingToRetry"
            case .ended: "ended"
            }
        }

        /// The interceptors' task or the retry timer the phase waits for, if any.
        var pendingWork: Work? {
            switch self {
            case .adapting(_, let work), .deciding(_, _, let work), .waitingToRetry(_, let work): work
            case .initialized, .running, .ended: nil
            }
        }
    }

    /// What the transfer must do.
    enum Action {
        case none
        /// Have the interceptors adapt attempt `attempt`'s request, then report `adapted`.
        case adapt(attempt: Int)
        /// Start a hop with `next`, or with the attempt's request when `nil`.
        case startHop(next: Request?)
        /// Ask the interceptors about attempt `attempt`, then report `decided`.
        case decide(attempt: Int, Outcome)
        /// Report `retryTimerFired` after `delay` seconds.
        case scheduleRetry(after: TimeInterval)
        /// Tell the client the task finished.
        case finish
        /// Tell the client the task failed.
        case fail(any Error)
        /// Tell the client the attempt's own outcome: the held response and its body, then the
        /// end, or the failure.
        case conclude(Outcome)
        /// Stop everything running: the handle, and `pending` (the interceptors' task or the
        /// retry timer) when there is one; the client is not told.
        case stop(pending: Work?)
        /// An event reached a phase that cannot receive it: stop everything (as `stop`), then
        /// tell the client the task failed with the error (a defect, which debug builds assert).
        case reject(TransferStateError, pending: Work?)
    }

    /// What the interceptors decided.
    enum Decision {
        case retry(after: TimeInterval)
        case conclude
        case fail(any Error)
    }

    /// Where a chunk of the running hop's body goes.
    enum BodyDestination {
        case client
        case held
        case discarded
    }

    /// Whether attempts go through interceptors (adapted, and decided on when they fail).
    let hasInterceptors: Bool
    private(set) var phase = Phase.initialized
    /// Whether the client received the final response (the body that follows may be cut, and
    /// continued by a range request on a retry).
    private(set) var responseDelivered = false
    /// The most bytes of an error body held back: past it the response goes to the client.
    let maximumHeldBodyLength: Int

    init(hasInterceptors: Bool, maximumHeldBodyLength: Int) {
        self.hasInterceptors = hasInterceptors
        self.maximumHeldBodyLength = maximumHeldBodyLength
    }

    // MARK: Reading the state

    var isEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// The attempt running or last run (1 before the first).
    var attempt: Int {
        switch phase {
        case .adapting(let attempt, _), .running(let attempt, _), .deciding(let attempt, _, _): return attempt.number
        case .waitingToRetry(let next, _): return next - 1
        case .initialized, .ended: return max(1, lastAttempt)
        }
    }

    private var lastAttempt = 1

    /// Whether the running hop's head may still decide the hop (a redirect, a challenge, the
    /// final response): it is the attempt's, and goes to the client.
    var isDelivering: Bool {
        if case .running(_, .delivering) = phase { return true }
        return false
    }

    /// Whether the attempt already answered one Basic challenge.
    var authenticationAttempted: Bool {
        if case .running(let attempt, _) = phase { return attempt.authenticationAttempted }
        return false
    }

    var bodyDestination: BodyDestination {
        switch phase {
        case .running(_, .delivering): return .client
        case .running(_, .holding): return .held
        default: return .discarded
        }
    }

    // MARK: Events

    /// The transfer starts.
    mutating func start() -> Action {
        guard case .initialized = phase else { return unexpected("start") }
        return begin(attempt: 1)
    }

    private mutating func begin(attempt number: Int) -> Action {
        lastAttempt = number
        if hasInterceptors {
            phase = .adapting(Attempt(number: number), nil)
            return .adapt(attempt: number)
        }
        phase = .running(Attempt(number: number), .delivering)
        return .startHop(next: nil)
    }

    /// The work an `adapt`, `decide` or `scheduleRetry` action asked for began: the phase keeps
    /// it. `false` when the phase waits for no work (the caller cancels it).
    mutating func began(_ work: Work) -> Bool {
        switch phase {
        case .adapting(let attempt, nil): phase = .adapting(attempt, work)
        case .deciding(let attempt, let outcome, nil): phase = .deciding(attempt, outcome, work)
        case .waitingToRetry(let next, nil): phase = .waitingToRetry(next: next, work)
        default: return false
        }
        return true
    }

    /// The interceptors adapted the attempt's request (the transfer keeps it), or failed.
    mutating func adapted(failure: (any Error)?) -> Action {
        guard case .adapting(let attempt, _) = phase else { return unexpected("adapted") }
        if let failure { return end(.fail(failure)) }
        phase = .running(attempt, .delivering)
        return .startHop(next: nil)
    }

    /// The running hop's head is a redirect to `next`, which the transfer follows.
    mutating func redirected(to next: Request) {
        guard case .running(let attempt, .delivering) = phase else { return }
        phase = .running(attempt, .awaitingNextHop(next: next))
    }

    /// The running hop's head is a Basic challenge, answered by `next`.
    mutating func authenticated(with next: Request) {
        guard case .running(var attempt, .delivering) = phase, !attempt.authenticationAttempted else { return }
        attempt.authenticationAttempted = true
        phase = .running(attempt, .awaitingNextHop(next: next))
    }

    /// The running hop's head is the final response. An error response (`isError`) is held
    /// while the task has interceptors; otherwise it goes to the client. Returns whether it
    /// goes to the client now.
    mutating func receivedFinalResponse(_ response: Response, isError: Bool) -> Bool {
        guard case .running(let attempt, .delivering) = phase else { return false }
        if hasInterceptors, isError {
            phase = .running(attempt, .holding(Held(response: response, body: Data())))
            return false
        }
        responseDelivered = true
        return true
    }

    /// Keeps a chunk of a held body; past `maximumHeldBodyLength`, releases the response: it
    /// and the body held go to the client (returned), and the rest of the body follows.
    mutating func hold(_ bytes: UnsafeRawBufferPointer) -> Held? {
        guard case .running(let attempt, .holding(var held)) = phase else { return nil }
        // Out of the enum while appending, so that the body is not copied.
        phase = .ended
        held.body.append(contentsOf: bytes)
        guard held.body.count > maximumHeldBodyLength else {
            phase = .running(attempt, .holding(held))
            return nil
        }
        phase = .running(attempt, .delivering)
        responseDelivered = true
        return held
    }

    /// The held body ended with the trailer `fields`: kept with it, for when it is concluded.
    mutating func holdTrailers(_ fields: [String: String]) {
        guard case .running(let attempt, .holding(var held)) = phase else { return }
        held.trailers = fields
        phase = .running(attempt, .holding(held))
    }

    /// The running hop ended: with `failure` (`nil` when libcurl reported success), and
    /// `closedInHead` the failure when it ended without a final response. `canContinue`: the
    /// delivered body can continue with a range request. `endsTask`: the failure ends the task
    /// whatever the interceptors would decide (a response past a limit, the total timeout).
    mutating func hopFinished(
        failure: Failure?, closedInHead: @autoclosure () -> Failure, canContinue: Bool, endsTask: Bool = false
    ) -> Action {
        guard case .running(let attempt, let hop) = phase else { return unexpected("hopFinished") }
        if endsTask, let failure { return end(.fail(failure)) }
        switch hop {
        case .awaitingNextHop(let next) where failure == nil:
            phase = .running(attempt, .delivering)
            return .startHop(next: next)
        case .holding(let held):
            return decide(attempt, Outcome(held: held, failure: failure))
        case .delivering, .awaitingNextHop:
            if hasInterceptors, !responseDelivered || (failure != nil && canContinue) {
                return decide(attempt, Outcome(held: nil, failure: failure ?? closedInHead()))
            }
            if let failure { return end(.fail(failure)) }
            return end(responseDelivered ? .finish : .fail(closedInHead()))
        }
    }

    /// The running attempt failed outside libcurl (the idle timeout); its handle is gone.
    mutating func attemptFailed(_ failure: Failure) -> Action {
        guard case .running(let attempt, let hop) = phase else { return unexpected("attemptFailed") }
        if case .holding(let held) = hop { return decide(attempt, Outcome(held: held, failure: failure)) }
        guard hasInterceptors, !responseDelivered else { return end(.fail(failure)) }
        return decide(attempt, Outcome(held: nil, failure: failure))
    }

    private mutating func decide(_ attempt: Attempt, _ outcome: Outcome) -> Action {
        phase = .deciding(attempt, outcome, nil)
        return .decide(attempt: attempt.number, outcome)
    }

    /// The interceptors decided on the attempt.
    mutating func decided(_ decision: Decision) -> Action {
        guard case .deciding(let attempt, let outcome, _) = phase else { return unexpected("decided") }
        switch decision {
        case .retry(let delay):
            phase = .waitingToRetry(next: attempt.number + 1, nil)
            return .scheduleRetry(after: delay)
        case .conclude:
            if outcome.held != nil { responseDelivered = true }
            return end(.conclude(outcome))
        case .fail(let error):
            return end(.fail(error))
        }
    }

    /// The wait before a retry ended: the next attempt starts.
    mutating func retryTimerFired() -> Action {
        guard case .waitingToRetry(let next, _) = phase else { return unexpected("retryTimerFired") }
        return begin(attempt: next)
    }

    /// The transfer failed outside an attempt's own outcome (a request it cannot send, a
    /// response that does not continue the body delivered).
    mutating func failed(_ error: any Error) -> Action {
        guard !isEnded else { return .none }
        return end(.fail(error))
    }

    /// The task was cancelled: stop everything; the transfer ends the task itself
    /// (`CurlTransfer.cancel(with:)`).
    mutating func cancelled() -> Action {
        let pending = phase.pendingWork
        if !isEnded { lastAttempt = attempt }
        phase = .ended
        return .stop(pending: pending)
    }

    /// `event` reached the phase, which cannot receive it: nothing after the end (a late event
    /// a cancellation raced), rejected before.
    private mutating func unexpected(_ event: String) -> Action {
        guard !isEnded else { return .none }
        let pending = phase.pendingWork
        return end(.reject(TransferStateError(event: event, phase: phase.name), pending: pending))
    }

    private mutating func end(_ action: Action) -> Action {
        lastAttempt = attempt
        phase = .ended
        return action
    }
}
