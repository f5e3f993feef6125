/// The lifecycle of one `CurlTransfer`, as a value its transfer owns: which hop is running,
/// whether its body goes to URLSession's client, and whether the client has been told the
/// end. Each event returns what the transfer must do. Pure: tested without a server.
struct CurlTransferState<Request> {
    enum Phase {
        /// No handle yet, or between hops.
        case idle
        /// A handle is running; its response and body go to the client.
        case transferring
        /// The running hop's head asked for `next` (a redirect or a Basic retry); the rest of
        /// its body is discarded and `next` starts when the hop finishes.
        case awaitingNextHop(next: Request)
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
        /// The task already ended.
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

    /// The running hop finished with libcurl's `curlCode` (0 is success).
    mutating func hopFinished(curlCode: Int32) -> Completion {
        switch phase {
        case .ended:
            return .nothing
        case .awaitingNextHop(let next) where curlCode == 0:
            phase = .idle
            return .startNextHop(next)
        default:
            phase = .ended
            if curlCode != 0 { return .fail(curlCode: curlCode) }
            return responseDelivered ? .finishLoading : .failWithoutResponse
        }
    }

    /// The transfer failed before or between hops; `true` when the client must be told.
    mutating func failed() -> Bool {
        if case .ended = phase { return false }
        phase = .ended
        return true
    }

    /// URLSession stopped the task: the client is not called again.
    mutating func cancelled() {
        phase = .ended
    }
}
