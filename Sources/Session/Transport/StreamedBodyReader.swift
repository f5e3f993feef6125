import AFLocking
import Foundation

/// Reads a request body stream for libcurl away from the transport's queue. An `InputStream`'s
/// `read` blocks until its source has bytes (a pipe whose producer is slow, a socket, a
/// multipart body waiting on a file): read on the transport's one serial queue, it stalled every
/// transfer of the manager and the timeouts that run there. Here reads run on a queue of their
/// own into a bounded buffer; libcurl's read callback takes what is buffered, or pauses the
/// upload (`CURL_READFUNC_PAUSE`) until `readable` says bytes or the end arrived. A source that
/// never produces keeps one reading thread, never the transport: the transfer's timeouts still
/// fire and a cancelled transfer stops the reader.
final class StreamedBodyReader: @unchecked Sendable {
    // @unchecked: `state` is a `Locked`; `stream` is read only by the one read in flight on
    // `queue` (`state.reading` admits one at a time).

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

    /// A reader of `stream`; `readable` is called (on the reading queue) when bytes or the end
    /// arrive after `take` answered `.pause`.
    init(stream: InputStream, readable: @escaping @Sendable () -> Void) {
        self.stream = stream
        self.readable = readable
    }

    /// Whether no read is in flight, so that the stream may be touched (rewound) elsewhere.
    var isIdle: Bool { state.withLock { !$0.reading } }

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

    /// Stops reading; a read blocked in the source ends with nothing more done.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Reads until the buffer is full, the stream ends or fails, or the reader is stopped.
    private func readAhead() {
        if stream.streamStatus == .notOpen { stream.open() }
        var chunk = Data(count: Self.chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { stream.read($0.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: $0.count) }
            let (wake, more): (Bool, Bool) = state.withLock { state in
                guard !state.stopped else {
                    state.reading = false
                    return (false, false)
                }
                if count > 0 {
                    state.chunks.append(chunk.prefix(count))
                    state.buffered += count
                } else if count == 0 {
                    state.ended = true
                } else {
                    state.failed = true
                }
                let wake = state.waiting
                state.waiting = false
                let more = count > 0 && state.buffered < Self.bufferLimit
                if !more { state.reading = false }
                return (wake, more)
            }
            if wake { readable() }
            guard more else { return }
        }
    }
}
