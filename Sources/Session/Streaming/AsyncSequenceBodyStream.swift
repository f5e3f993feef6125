import AFLocking
import AFSerialization
import Foundation

/// A `StreamedRequestBody` as the `InputStream` the transport reads (on its body reader's
/// thread, which may block here while the sequence produces). Checks the declared length, and
/// replays as a new pass over the body when the body can start over, and ends with the body's
/// trailer fields.
final class AsyncSequenceBodyStream: InputStream, TrailingBodyStream {
    // `pending`, `offset`, `sent` and `status` are touched only by the one thread
    // reading the stream; `producer` is under `lock`, since `close` may come from another.
    private let body: StreamedRequestBody
    private let pipe = BodyPipe()
    private let producer = Locked<Task<Void, Never>?>(nil)
    private let trailers = Locked<[String: String]>([:])
    private var pending = Data()
    private var offset = 0
    private var sent: Int64 = 0
    private var status: Stream.Status = .notOpen
    private var error: (any Error)?

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
        guard status == .notOpen else { return }
        guard let task = body.start(pipe) else {
            fail(RequestSerializationError.bodySourceFailed(reason: "the body's sequence was already sent once"))
            return
        }
        producer.withLock { $0 = task }
        status = .open
    }

    override func close() {
        pipe.close()
        producer.withLock { $0 }?.cancel()
        if status != .error { status = .closed }
    }

    override var hasBytesAvailable: Bool { status == .open }
    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { error }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard status == .open else { return status == .error ? -1 : 0 }
        while offset == pending.count {
            switch pipe.next() {
            case .chunk(let chunk):
                pending = chunk
                offset = 0
            case .end(let fields):
                trailers.withLock { $0 = fields }
                if let length = body.length, sent != length {
                    fail(RequestSerializationError.bodySourceFailed(reason: "the body's sequence ended after \(sent) of the \(length) bytes declared"))
                    return -1
                }
                status = .atEnd
                return 0
            case .failure(let failure):
                fail(failure)
                return -1
            }
        }
        let count = min(len, pending.count - offset)
        if let length = body.length, sent + Int64(count) > length {
            fail(RequestSerializationError.bodySourceFailed(reason: "the body's sequence produced more than the \(length) bytes declared"))
            return -1
        }
        pending.withUnsafeBytes { bytes in
            buffer.update(from: bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count: count)
        }
        offset += count
        sent += Int64(count)
        return count
    }

    private func fail(_ failure: any Error) {
        error = failure
        status = .error
        pipe.close()
        producer.withLock { $0 }?.cancel()
    }
}
