/// The lifecycle of one `CurlTransfer`, as a value its transfer owns: which hop of which attempt
/// is running, whether its body goes to URLSession's client or is held while the task's
/// interceptors decide on a retry, and whether the client has been told the end. Each event
/// returns what the transfer must do. Pure: tested without a server.
struct CurlTransferState<Request> {
    enum Phase {
        /// No handle yet, or between hops.
        case idle
        /// A handle is running; its response and body go to the client.
        case transferring
        /// The running hop's head asked for `next` (a redirect or a Basic retry); the rest of
        /// its body is discarded and `next` starts when the hop finishes.
        case awaitingNextHop(next: Request)
        /// The running hop's final response is an error held back from the client, with its
        /// body, until the interceptors decide.
        case holding
        /// The attempt failed; the interceptors are deciding whether it is retried.
        case deciding
        /// The client was told the end (finished, failed) or the task was cancelled: nothing
        /// more reaches the client.
        case ended
    }

    /// What to do when a hop finishes.
    enum Completion {
        case startNextHop(Request)
        case finishLoading
        case fail(curlCode: Int32)
        /// libcurl reported success, but no final response reached the client: the
        /// connection ended inside a response's head (libcurl takes that for a response).
        case failWithoutResponse
        /// The attempt failed (with libcurl's `curlCode`, 0 when it ended with a held response
        /// or without one): ask the interceptors.
        case considerRetry(curlCode: Int32)
        /// The task already ended.
        case nothing
    }

    /// What to do when the attempt fails outside libcurl (the idle timeout).
    enum Failure {
        case tellClient
        case considerRetry
        case nothing
    }

    private(set) var phase = Phase.idle
    /// Whether the one Basic retry was made.
    private(set) var authenticationAttempted = false
    /// Whether the client received the final response.
    private(set) var responseDelivered = false

    /// A handle for the current request started.
    mutating func handleStarted() {
        if case .idle = phase { phase = .transferring }
    }

    /// Whether the running hop's head and body go to the client.
    var deliversToClient: Bool {
        if case .transferring = phase { return true }
        return false
    }

    /// The running hop's head asked for a redirect to `next`.
    mutating func redirect(to next: Request) {
        guard deliversToClient else { return }
        phase = .awaitingNextHop(next: next)
    }

    /// The running hop's head was a Basic challenge, answered with `next`.
    mutating func retryAuthenticated(with next: Request) {
        guard deliversToClient else { return }
        authenticationAttempted = true
        phase = .awaitingNextHop(next: next)
    }

    /// The client received the final response.
    mutating func deliveredResponse() {
        responseDelivered = true
    }

    /// The running hop's final response is held back (its body too) for a retry decision.
    mutating func hold() {
        guard deliversToClient else { return }
        phase = .holding
    }

    /// Whether the running hop's body is being held.
    var isHolding: Bool {
        if case .holding = phase { return true }
        return false
    }

    /// A held response goes to the client after all, and the rest of its body with it.
    mutating func releaseHeld() {
        guard isHolding else { return }
        phase = .transferring
        responseDelivered = true
    }

    /// The running hop finished with libcurl's `curlCode` (0 is success). With `retriable`
    /// (the task has interceptors), an attempt that failed before a response reached the
    /// client, or ended with a held response, is put to them; with `canContinue` too, one whose
    /// delivered body can continue with a range request.
    mutating func hopFinished(curlCode: Int32, retriable: Bool = false, canContinue: Bool = false) -> Completion {
        switch phase {
        case .ended, .deciding:
            return .nothing
        case .awaitingNextHop(let next) where curlCode == 0:
            phase = .idle
            return .startNextHop(next)
        case .holding:
            phase = .deciding
            return .considerRetry(curlCode: curlCode)
        default:
            if retriable, !responseDelivered || (curlCode != 0 && canContinue) {
                phase = .deciding
                return .considerRetry(curlCode: curlCode)
            }
            phase = .ended
            if curlCode != 0 { return .fail(curlCode: curlCode) }
            return responseDelivered ? .finishLoading : .failWithoutResponse
        }
    }

    /// The attempt failed outside libcurl while running (the idle timeout); `failed()` ends a
    /// transfer told to tell the client.
    mutating func attemptFailed(retriable: Bool) -> Failure {
        switch phase {
        case .ended, .deciding: return .nothing
        default:
            guard retriable, !responseDelivered else { return .tellClient }
            phase = .deciding
            return .considerRetry
        }
    }

    /// The interceptors decided: with `retry`, the next attempt starts from idle (`true`);
    /// otherwise the attempt's outcome goes to the client (`true`, the transfer then ends it).
    /// `false` when the task ended meanwhile.
    mutating func decided(retry: Bool) -> Bool {
        guard case .deciding = phase else { return false }
        if retry {
            phase = .idle
            authenticationAttempted = false
        } else {
            responseDelivered = true
        }
        return true
    }

    /// The transfer failed (before or between hops, after a decision, or with a refused
    /// continuation); `true` when the client must be told.
    mutating func failed() -> Bool {
        if case .ended = phase { return false }
        phase = .ended
        return true
    }

    /// The client was told the end after a decision.
    mutating func ended() {
        phase = .ended
    }

    /// Whether nothing more reaches the client.
    var isEnded: Bool {
        if case .ended = phase { return true }
        return false
    }

    /// URLSession stopped the task: the client is not called again.
    mutating func cancelled() {
        phase = .ended
    }
}
