import AFLocking
import AFSerialization
import Foundation

/// Wraps every request body stream the manager hands to URLSession.
///
/// - URLSession on Linux takes `hasBytesAvailable == false` as the end of the body and sends
///   a truncated request without an error; here it stays `true` until the source really
///   ended, so URLSession calls `read`, which blocks until the source has bytes.
/// - A source that fails is remembered, so the task completes with
///   `SessionError.bodyStreamFailed` carrying the source's error instead of a bare URLSession
///   error (or a short body).
/// - A source that can be replayed (a multipart body of files and data, a file) starts over
///   with `rewind()`, so that the libcurl transport can send the body again for a retry or a
///   307/308 redirect.
/// - A source's trailer fields (`StreamedRequestBody`'s) reach the libcurl transport.
final class UploadBodyStream: InputStream, ReplayableBodyStream, TrailingBodyStream, AsynchronousBodyStream {
    // `state` and `trailerSource` are `Locked`: a source read by callback answers on its
    // producer's thread, and `close` comes from the task's completion.

    private struct State {
        /// The source, replaced by `rewind()`.
        var source: InputStream
        /// Whether the source ended or failed.
        var ended = false
        var failure: (any Error)?
        var cancelled = false
    }

    private let state: Locked<State>
    /// Whether `rewind()` can start the body over.
    let isRewindable: Bool
    let hasTrailers: Bool
    /// The source's trailers; the source is replaced only when no read is in flight, before
    /// the transport asks for them again.
    private let trailerSource: Locked<(any TrailingBodyStream)?>

    init(source: InputStream) {
        state = Locked(State(source: source))
        isRewindable = (source as? RestartableBodySource)?.isReplayable ?? false
        hasTrailers = (source as? any TrailingBodyStream)?.hasTrailers ?? false
        trailerSource = Locked(source as? any TrailingBodyStream)
        super.init(data: Data())
    }

    private var source: InputStream { state.withLock { $0.source } }

    var trailerFields: [String: String] { trailerSource.withLock { $0 }?.trailerFields ?? [:] }

    /// Starts the body over from a replay of the source; `false` when it cannot be replayed or
    /// failed. Only when no read is in flight.
    func rewind() -> Bool {
        guard isRewindable, failure == nil, let replay = (source as? RestartableBodySource)?.restartedSource() else { return false }
        let previous = state.withLock { state in
            defer {
                state.source = replay
                state.ended = false
            }
            return state.source
        }
        previous.close()
        trailerSource.withLock { $0 = replay as? any TrailingBodyStream }
        return true
    }

    /// The source's failure, if it failed; read by the task's delegate when the task completes.
    var failure: (any Error)? { state.withLock { $0.failure } }

    override func open() {
        let source = source
        if source.streamStatus == .notOpen { source.open() }
    }

    /// Closes the source: a `StreamedRequestBody`'s producer ends, and a read waiting on it is
    /// answered. From any thread.
    override func close() {
        source.close()
    }

    /// The task ended (`cancelling`: is being cancelled): a source that can be closed from any
    /// thread (a `StreamedRequestBody`'s) is closed, so that its producer ends and a read waiting
    /// on it returns (URLSession's own protocol cancels a task only once its read returned, and
    /// then fails it for the read instead: `wasCancelled` tells the task's delegate). Other
    /// sources are left to the thread reading them.
    func release(cancelling: Bool = false) {
        let source = state.withLock { state in
            if cancelling { state.cancelled = true }
            return state.source
        }
        if source is any AsynchronousBodyStream { source.close() }
    }

    /// Whether `release(cancelling: true)` closed the body for a cancellation.
    var wasCancelled: Bool { state.withLock { $0.cancelled } }

    override var hasBytesAvailable: Bool { state.withLock { !$0.ended } }

    override var streamStatus: Stream.Status {
        let (source, ended, failed) = state.withLock { ($0.source, $0.ended, $0.failure != nil) }
        if failed { return .error }
        return ended ? .atEnd : source.streamStatus
    }

    override var streamError: (any Error)? { failure }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let (source, ended, failed) = state.withLock { ($0.source, $0.ended, $0.failure != nil) }
        guard !ended else { return failed ? -1 : 0 }
        let count = source.read(buffer, maxLength: len)
        if count < 0 {
            record(failureOf: source)
        } else if count == 0 {
            state.withLock { $0.ended = true }
        }
        return count
    }

    var readsAsynchronously: Bool { (source as? any AsynchronousBodyStream)?.readsAsynchronously ?? false }

    func readChunk(_ completion: @escaping @Sendable (BodyChunk) -> Void) {
        let (source, ended, failed) = state.withLock { ($0.source, $0.ended, $0.failure != nil) }
        guard !ended, let asynchronous = source as? any AsynchronousBodyStream else { return completion(failed || !ended ? .failed : .end) }
        let reference = CallbackBodyStream(self)
        let sourceReference = CallbackBodyStream(asynchronous)
        asynchronous.readChunk { chunk in
            switch chunk {
            case .bytes: break
            case .end: reference.stream.state.withLock { $0.ended = true }
            case .failed: reference.stream.record(failureOf: sourceReference.stream)
            }
            completion(chunk)
        }
    }

    /// The source failed: its error is kept for the task's completion, unless the source was
    /// closed (the task ended: its own outcome stands).
    private func record(failureOf source: InputStream) {
        let closed = source.streamStatus == .closed && source.streamError == nil
        let error = source.streamError ?? RequestSerializationError.bodySourceFailed(reason: "input stream read failed")
        state.withLock { state in
            state.ended = true
            guard !closed else { return }
            state.failure = error
        }
    }
}

/// A body source that can make a new pass over its bytes: a multipart body of data and files,
/// a `StreamedRequestBody` made to start over.
protocol RestartableBodySource: InputStream {
    /// Whether `restartedSource()` can start the body over.
    var isReplayable: Bool { get }
    /// A new stream over the whole body, unopened; `nil` when it cannot start over.
    func restartedSource() -> InputStream?
}

extension MultipartBodyStream: RestartableBodySource {
    func restartedSource() -> InputStream? { replay() }
}

extension AsyncSequenceBodyStream: RestartableBodySource {
    func restartedSource() -> InputStream? { replay() }
}
