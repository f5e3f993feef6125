import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What passes a streamed task's response from its `TaskDelegate` to the caller: the final
/// response head once, then the body's chunks in order, then the end. The delegate appends
/// chunks as the transport delivers them; the consumer takes them one at a time and only then
/// tells the transport's receive window, so the transport reads no further ahead of the
/// consumer than the window (1 MiB) allows. On URLSession's own protocol there is no window:
/// the chunks wait here as URLSession delivers them. The trailer fields come from the libcurl
/// transport, before the end; URLSession's own protocol drops them.
final class ResponseBodyChannel: Sendable {
    private struct State {
        var headWaiter: CheckedContinuation<HTTPURLResponse, any Error>?
        var response: HTTPURLResponse?
        var chunks: [Data] = []
        /// The index of the next chunk to hand out (the array is compacted as it is consumed).
        var next = 0
        var chunkWaiter: CheckedContinuation<Data?, any Error>?
        /// `nil` while the task runs; then `.success` at the body's end, or the failure.
        var end: Result<Void, any Error>?
        var window: ReceiveWindow?
        var task: URLSessionTask?
        var trailers: [String: String] = [:]
    }

    private let state = Locked(State())

    /// The task carrying the stream, to cancel it when the consumer goes away.
    func attach(_ task: URLSessionTask) {
        let ended = state.withLock { state in
            state.task = task
            return state.end != nil
        }
        if ended { task.cancel() }
    }

    /// The transport's window the body arrives through.
    func receive(through window: ReceiveWindow) {
        state.withLock { $0.window = window }
    }

    // MARK: The task's side

    /// The final response arrived.
    func receive(_ response: HTTPURLResponse) {
        let waiter: CheckedContinuation<HTTPURLResponse, any Error>? = state.withLock { state in
            guard state.response == nil, state.end == nil else { return nil }
            state.response = response
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: response)
    }

    /// The body's trailer fields arrived (before its end).
    func receive(trailers: [String: String]) {
        state.withLock { $0.trailers = trailers }
    }

    /// The next chunk of the body arrived.
    func append(_ chunk: Data) {
        let waiter: CheckedContinuation<Data?, any Error>? = state.withLock { state in
            guard state.end == nil else { return nil }
            guard let waiter = state.chunkWaiter else {
                state.chunks.append(chunk)
                return nil
            }
            state.chunkWaiter = nil
            return waiter
        }
        guard let waiter else { return }
        consumed(chunk.count)
        waiter.resume(returning: chunk)
    }

    /// `count` bytes the transport delivered are not the body (the cache answered in their
    /// place): the window takes them as consumed.
    func discarded(_ count: Int) {
        consumed(count)
    }

    /// The task ended: `error` is `nil` at the body's end.
    func finish(_ error: (any Error)?) {
        let (headWaiter, chunkWaiter) = state.withLock { state -> (CheckedContinuation<HTTPURLResponse, any Error>?, CheckedContinuation<Data?, any Error>?) in
            guard state.end == nil else { return (nil, nil) }
            state.end = error.map { .failure($0) } ?? .success(())
            defer {
                state.headWaiter = nil
                state.chunkWaiter = nil
            }
            return (state.headWaiter, state.chunkWaiter)
        }
        let failure = error ?? URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "The task ended without a response."])
        headWaiter?.resume(throwing: failure)
        if let error { chunkWaiter?.resume(throwing: error) } else { chunkWaiter?.resume(returning: nil) }
    }

    // MARK: The consumer's side

    /// The final response, once it arrived; throws the task's failure when it ended first.
    func head() async throws -> HTTPURLResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<HTTPURLResponse, any Error>? = state.withLock { state in
                if let response = state.response { return .success(response) }
                if case .failure(let error)? = state.end { return .failure(error) }
                if state.end != nil { return .failure(URLError(.badServerResponse)) }
                state.headWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The next chunk of the body, `nil` at its end; throws the task's failure.
    func nextChunk() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Data?, any Error>? = state.withLock { state in
                if state.next < state.chunks.count {
                    let chunk = state.chunks[state.next]
                    state.next += 1
                    if state.next == state.chunks.count {
                        state.chunks.removeAll(keepingCapacity: true)
                        state.next = 0
                    }
                    return .success(chunk)
                }
                switch state.end {
                case .success?: return .success(nil)
                case .failure(let error)?: return .failure(error)
                case nil:
                    state.chunkWaiter = continuation
                    return nil
                }
            }
            guard let ready else { return }
            if case .success(let chunk?) = ready { consumed(chunk.count) }
            continuation.resume(with: ready)
        }
    }

    /// Cancels the task unless it has ended: the consumer stopped.
    func cancel() {
        let task: URLSessionTask? = state.withLock { state in
            guard state.end == nil else { return nil }
            return state.task
        }
        task?.cancel()
    }

    /// The trailer fields, once the body ended and every chunk was taken; `nil` before, or
    /// when the body failed, or on URLSession's own protocol (only the libcurl transport gives
    /// a window, and only it reads trailers).
    var trailers: [String: String]? {
        state.withLock { state in
            guard case .success? = state.end, state.next >= state.chunks.count, state.window != nil else { return nil }
            return state.trailers
        }
    }

    /// Whether the task has ended and every chunk was taken.
    var isDrained: Bool {
        state.withLock { $0.end != nil && $0.next >= $0.chunks.count }
    }

    private func consumed(_ count: Int) {
        state.withLock { $0.window }?.consumed(count)
    }
}
