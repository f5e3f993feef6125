import AFLocking
import Foundation

/// The handshake between a `StreamedRequestBody`'s producing task and the reader of the body:
/// the reader asks for a chunk with a callback and returns; the producer waits for a request,
/// pulls one chunk from the sequence and answers through the callback. One chunk at most is ever
/// in flight, and no thread waits for the sequence (the libcurl transport's reader resumes the
/// upload from the callback); only `next()` blocks, for URLSession's own protocol, which reads
/// the body stream itself. Closing answers a pending request at once.
final class BodyPipe: Sendable {
    /// What the producer answered a request with.
    enum Answer: Sendable {
        case chunk(Data)
        /// The body ended, with these trailer fields.
        case end(trailers: [String: String])
        case failure(any Error)
    }

    typealias Reader = @Sendable (Answer) -> Void

    private struct State {
        var demandWaiter: CheckedContinuation<Bool, Never>?
        var demanded = false
        var reader: Reader?
        var closed = false
    }

    private let state = Locked(State())

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

    /// Answers the request with `chunk` (empty when the sequence gave an empty one: the reader
    /// asks again).
    func deliver(_ chunk: Data) {
        answer(.chunk(chunk))
    }

    /// The sequence ended, and the body with `trailers`.
    func end(trailers: [String: String]) {
        answer(.end(trailers: trailers))
    }

    func fail(_ error: any Error) {
        answer(.failure(error))
    }

    /// Hands `answer` to the waiting reader, outside the lock (the reader may ask again at once).
    private func answer(_ answer: Answer) {
        let reader = state.withLock { state in
            defer { state.reader = nil }
            return state.reader
        }
        reader?(answer)
    }

    // MARK: The reader's side

    /// Asks for the next chunk; `reader` gets the answer on the producer's thread, or at once
    /// (a cancellation) when the pipe is closed. One request at a time.
    func request(_ reader: @escaping Reader) {
        let (waiter, closed): (CheckedContinuation<Bool, Never>?, Bool) = state.withLock { state in
            if state.closed { return (nil, true) }
            state.reader = reader
            guard let waiter = state.demandWaiter else {
                state.demanded = true
                return (nil, false)
            }
            state.demandWaiter = nil
            return (waiter, false)
        }
        if closed { return reader(.failure(CancellationError())) }
        waiter?.resume(returning: true)
    }

    /// Asks for the next chunk and waits for it, blocking the calling thread: only for
    /// URLSession's own protocol, which reads body streams synchronously. `close()` releases it.
    func next() -> Answer {
        let answered = DispatchSemaphore(value: 0)
        let answer = Locked<Answer?>(nil)
        request { value in
            answer.withLock { $0 = value }
            answered.signal()
        }
        answered.wait()
        return answer.withLock { $0 } ?? .failure(CancellationError())
    }

    /// The body is closed (sent, or the task ended): a waiting producer stops, and a pending
    /// request is answered with a cancellation.
    func close() {
        let (waiter, reader): (CheckedContinuation<Bool, Never>?, Reader?) = state.withLock { state in
            state.closed = true
            defer {
                state.demandWaiter = nil
                state.reader = nil
            }
            return (state.demandWaiter, state.reader)
        }
        waiter?.resume(returning: false)
        reader?(.failure(CancellationError()))
    }
}
