import AFLocking
import Foundation

/// The handshake between a `StreamedRequestBody`'s producing task and the thread reading the
/// body for the transport: the reader asks for a chunk and waits; the producer waits for a
/// request, pulls one chunk from the sequence, hands it over and signals. One chunk at most is
/// ever in flight.
final class BodyPipe: Sendable {
    private struct State {
        var demandWaiter: CheckedContinuation<Bool, Never>?
        var demanded = false
        var chunk: Data?
        var trailers: [String: String]?
        var failure: (any Error)?
        var closed = false
    }

    private let state = Locked(State())
    private let arrived = DispatchSemaphore(value: 0)

    // MARK: The producer's side

    /// Waits until the reader asks for a chunk; `false` once the pipe is closed.
    func demand() async -> Bool {
        await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                if state.closed { return false }
                if state.demanded {
                    state.demanded = false
                    return true
                }
                state.demandWaiter = continuation
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    func deliver(_ chunk: Data) {
        state.withLock { $0.chunk = chunk }
        arrived.signal()
    }

    /// The sequence gave an empty chunk: the reader asks again.
    func deliverNothing() {
        state.withLock { $0.chunk = Data() }
        arrived.signal()
    }

    /// The sequence ended, and the body with `trailers`.
    func end(trailers: [String: String]) {
        state.withLock { $0.trailers = trailers }
        arrived.signal()
    }

    func fail(_ error: any Error) {
        state.withLock { $0.failure = error }
        arrived.signal()
    }

    // MARK: The reader's side

    /// What the producer answered a request with.
    enum Answer {
        case chunk(Data)
        /// The body ended, with these trailer fields.
        case end(trailers: [String: String])
        case failure(any Error)
    }

    /// Asks for the next chunk and waits for it (blocking: on the thread reading the body).
    func next() -> Answer {
        let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
            state.chunk = nil
            guard let waiter = state.demandWaiter else {
                state.demanded = true
                return nil
            }
            state.demandWaiter = nil
            return waiter
        }
        waiter?.resume(returning: true)
        arrived.wait()
        return state.withLock { state in
            if state.closed { return .failure(CancellationError()) }
            if let failure = state.failure { return .failure(failure) }
            if let chunk = state.chunk { return .chunk(chunk) }
            return .end(trailers: state.trailers ?? [:])
        }
    }

    /// The body is closed (sent, or the task stopped): a waiting producer stops, and a reader
    /// waiting for a chunk gets a cancellation.
    func close() {
        let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
            state.closed = true
            defer { state.demandWaiter = nil }
            return state.demandWaiter
        }
        waiter?.resume(returning: false)
        arrived.signal()
    }
}
