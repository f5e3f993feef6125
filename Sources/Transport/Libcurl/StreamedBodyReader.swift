import AFLocking
import Foundation

/// Reads a request body stream for libcurl away from the transport's queue. An `InputStream`'s
/// `read` blocks until its source has bytes (a pipe whose producer is slow, a socket, a
/// multipart body waiting on a file): read on the transport's one serial queue, it stalled every
/// transfer of the manager and the timeouts that run there. Here reads run on a queue of their
/// own into a bounded buffer; libcurl's read callback takes what is buffered, or pauses the
/// upload (`CURL_READFUNC_PAUSE`) until `readable` says bytes or the end arrived. A stream that
/// answers by callback (`AsynchronousBodyStream`: a `StreamedRequestBody`) holds no thread while
/// its source waits; any other source that never produces keeps one reading thread, never the
/// transport: the transfer's timeouts still fire and a cancelled transfer stops the reader.
final class StreamedBodyReader: @unchecked Sendable {
    // @unchecked: `state` is a `Locked`; `stream` is read only by the one read in flight, on
    // `queue` or in its source's callback (`state.reading` admits one at a time).

    /// What libcurl's read callback gets.
    enum Outcome: Equatable {
        /// `count` bytes were copied.
        case bytes(Int)
        /// The body ended.
        case end
        /// Nothing is buffered yet: pause the upload until `readable` is called.
        case pause
        /// The stream failed.
        case failed
    }

    private struct State {
        var chunks: [Data] = []
        var offset = 0
        var buffered = 0
        var ended = false
        var failed = false
        var reading = false
        var waiting = false
        var stopped = false

        /// Marks the start of a read-ahead when none is in flight and there is room and more to read.
        mutating func startReading() -> Bool {
            guard !reading, !ended, !failed, !stopped, buffered < StreamedBodyReader.bufferLimit else { return false }
            reading = true
            return true
        }
    }

    /// How many bytes are read ahead of libcurl.
    static let bufferLimit = 256 * 1024
    private static let chunkSize = 64 * 1024
    /// Blocking reads, one at a time per body, away from every transport's queue.
    private static let queue = DispatchQueue(label: "AFNetworking.StreamedBodyReader", attributes: .concurrent)

    private let stream: InputStream
    private let readable: @Sendable () -> Void
    private let state = Locked(State())

    /// A reader of `stream`; `readable` is called (on the reading queue, or the thread of the
    /// source's callback) when bytes or the end arrive after `take` answered `.pause`.
    init(stream: InputStream, readable: @escaping @Sendable () -> Void) {
        self.stream = stream
        self.readable = readable
    }

    /// Whether no read is in flight, so that the stream may be touched (rewound) elsewhere,
    /// waiting up to half a second for a blocking read of the stream to end (a file's or
    /// memory's, done within microseconds): libcurl 8 may ask for a rewind while the read-ahead
    /// of a fresh attempt is still running (a dead pooled connection found at once), which
    /// refused the rewind (curl error 65). A source that answers by callback (a caller's
    /// sequence, which may never answer) is not waited for.
    func waitUntilIdle() -> Bool {
        let isIdle = { self.state.withLock { !$0.reading } }
        let answersByCallback = (stream as? any AsynchronousBodyStream)?.readsAsynchronously == true
        for _ in 0..<5_000 {
            if isIdle() { return true }
            if answersByCallback { return false }
            usleep(100)
        }
        return isIdle()
    }

    /// Starts reading ahead.
    func start() {
        if state.withLock({ $0.startReading() }) { Self.queue.async { self.readAhead() } }
    }

    /// Copies buffered bytes into `buffer`; on the transport's queue, from libcurl's read callback.
    func take(into buffer: UnsafeMutableRawBufferPointer) -> Outcome {
        let (outcome, readMore): (Outcome, Bool) = state.withLock { state in
            guard let first = state.chunks.first else {
                if state.failed { return (.failed, false) }
                if state.ended { return (.end, false) }
                state.waiting = true
                return (.pause, false)
            }
            let count = min(buffer.count, first.count - state.offset)
            first.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + state.offset, byteCount: count)
            }
            state.offset += count
            state.buffered -= count
            if state.offset == first.count {
                state.chunks.removeFirst()
                state.offset = 0
            }
            return (.bytes(count), state.startReading())
        }
        if readMore { Self.queue.async { self.readAhead() } }
        return outcome
    }

    /// Stops reading; a read blocked in the source, or a chunk asked of it, ends with nothing
    /// more done.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Reads until the buffer is full, the stream ends or fails, or the reader is stopped: by
    /// callback from a stream that can answer so (no thread waits on its source), otherwise
    /// with blocking reads on the reading queue.
    private func readAhead() {
        if stream.streamStatus == .notOpen { stream.open() }
        if let source = stream as? any AsynchronousBodyStream, source.readsAsynchronously { return requestChunk(from: source) }
        var chunk = Data(count: Self.chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { stream.read($0.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: $0.count) }
            guard received(count > 0 ? .bytes(chunk.prefix(count)) : count == 0 ? .end : .failed) else { return }
        }
    }

    /// Asks `source` for its next chunk, and for more as long as there is room.
    private func requestChunk(from source: any AsynchronousBodyStream) {
        let reference = CallbackBodyStream(source)
        source.readChunk { [self] chunk in
            if received(chunk) { requestChunk(from: reference.stream) }
        }
    }

    /// Buffers what a read gave and wakes a paused upload; whether to read more.
    private func received(_ chunk: BodyChunk) -> Bool {
        let (wake, more): (Bool, Bool) = state.withLock { state in
            guard !state.stopped else {
                state.reading = false
                return (false, false)
            }
            var more = false
            switch chunk {
            case .bytes(let bytes):
                state.chunks.append(bytes)
                state.buffered += bytes.count
                more = state.buffered < Self.bufferLimit
            case .end: state.ended = true
            case .failed: state.failed = true
            }
            let wake = state.waiting
            state.waiting = false
            if !more { state.reading = false }
            return (wake, more)
        }
        if wake { readable() }
        return more
    }
}
