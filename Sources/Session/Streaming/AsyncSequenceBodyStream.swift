import AFLocking
import AFSerialization
import Foundation

/// A `StreamedRequestBody` as the `InputStream` the transport reads: by callback
/// (`AsynchronousBodyStream`, the libcurl transport: no thread waits for the sequence), or with
/// a blocking `read` (URLSession's own protocol; `close()` releases a read waiting for a chunk).
/// Checks the declared length, replays as a new pass over the body when the body can start
/// over, and ends with the body's trailer fields.
final class AsyncSequenceBodyStream: InputStream, TrailingBodyStream, AsynchronousBodyStream {
    // `progress`, `producer` and `trailers` are `Locked` (answers arrive on the producer's
    // thread, `close` may come from any); `pending` and `offset` are touched only by the one
    // thread calling `read`.

    /// How far the body has been read, and whether it ended or failed.
    private struct Progress {
        var sent: Int64 = 0
        var status: Stream.Status = .notOpen
        var error: (any Error)?
    }

    private let body: StreamedRequestBody
    private let pipe = BodyPipe()
    private let producer = Locked<Task<Void, Never>?>(nil)
    private let trailers = Locked<[String: String]>([:])
    private let progress = Locked(Progress())
    private var pending = Data()
    private var offset = 0

    init(body: StreamedRequestBody) {
        self.body = body
        super.init(data: Data())
    }

    var hasTrailers: Bool { body.hasTrailers }
    var trailerFields: [String: String] { trailers.withLock { $0 } }

    /// Whether `replay()` can start the body over.
    var isReplayable: Bool { body.canRestart }

    /// A new pass over the body, when it can start over.
    func replay() -> AsyncSequenceBodyStream? {
        body.canRestart ? AsyncSequenceBodyStream(body: body) : nil
    }

    override func open() {
        guard streamStatus == .notOpen else { return }
        guard let task = body.start(pipe) else {
            fail(RequestSerializationError.bodySourceFailed(reason: "the body's sequence was already sent once"))
            return
        }
        producer.withLock { $0 = task }
        progress.withLock { $0.status = .open }
    }

    /// Ends the producer (its sequence is cancelled) and answers a pending read; from any thread.
    /// A body sent once and closed before it was opened (its task ended before its carrier read
    /// it) still ends its sequence: a producer is started on the closed pipe, which cancels it
    /// at once. A body that starts over makes no sequence for a pass never read.
    override func close() {
        let opened: Bool = progress.withLock { progress in
            defer { if progress.status != .error { progress.status = .closed } }
            return progress.status != .notOpen
        }
        pipe.close()
        if opened {
            producer.withLock { $0 }?.cancel()
        } else if !body.canRestart {
            _ = body.start(pipe)
        }
    }

    override var hasBytesAvailable: Bool { streamStatus == .open }
    override var streamStatus: Stream.Status { progress.withLock { $0.status } }
    override var streamError: (any Error)? { progress.withLock { $0.error } }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    var readsAsynchronously: Bool { true }

    func readChunk(_ completion: @escaping @Sendable (BodyChunk) -> Void) {
        let status = streamStatus
        guard status == .open else { return completion(status == .atEnd ? .end : .failed) }
        let reference = CallbackBodyStream(self)
        pipe.request { answer in
            if let chunk = reference.stream.accept(answer) { completion(chunk) } else { reference.stream.readChunk(completion) }
        }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let status = streamStatus
        guard status == .open else { return status == .error ? -1 : 0 }
        while offset == pending.count {
            switch accept(pipe.next()) {
            case nil: continue
            case .bytes(let chunk):
                pending = chunk
                offset = 0
            case .end: return 0
            case .failed: return -1
            }
        }
        let count = min(len, pending.count - offset)
        pending.withUnsafeBytes { bytes in
            buffer.update(from: bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count: count)
        }
        offset += count
        return count
    }

    /// What the producer's `answer` makes of the body, checked against its declared length;
    /// `nil` for an empty chunk (the reader asks again).
    private func accept(_ answer: BodyPipe.Answer) -> BodyChunk? {
        switch answer {
        case .chunk(let chunk):
            guard !chunk.isEmpty else { return nil }
            let tooLong = progress.withLock { progress in
                if let length = body.length, progress.sent + Int64(chunk.count) > length { return true }
                progress.sent += Int64(chunk.count)
                return false
            }
            guard !tooLong else {
                fail(RequestSerializationError.bodySourceFailed(reason: "the body's sequence produced more than the \(body.length ?? 0) bytes declared"))
                return .failed
            }
            return .bytes(chunk)
        case .end(let fields):
            trailers.withLock { $0 = fields }
            let sent = progress.withLock { $0.sent }
            if let length = body.length, sent != length {
                fail(RequestSerializationError.bodySourceFailed(reason: "the body's sequence ended after \(sent) of the \(length) bytes declared"))
                return .failed
            }
            progress.withLock { if $0.status == .open { $0.status = .atEnd } }
            return .end
        case .failure(let failure):
            fail(failure)
            return .failed
        }
    }

    private func fail(_ failure: any Error) {
        // A closed stream's pending read is answered, not failed.
        progress.withLock { progress in
            guard progress.status == .open || progress.status == .notOpen else { return }
            progress.error = failure
            progress.status = .error
        }
        pipe.close()
        producer.withLock { $0 }?.cancel()
    }
}
