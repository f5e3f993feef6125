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
final class UploadBodyStream: InputStream, ReplayableBodyStream, TrailingBodyStream {
    /// The source, replaced by `rewind()`; both touched only by the thread reading the stream.
    private var source: InputStream
    /// Whether the source ended or failed; touched only by the thread reading the stream.
    private var ended = false
    private let failureState = Locked<(any Error)?>(nil)
    /// Whether `rewind()` can start the body over.
    let isRewindable: Bool
    let hasTrailers: Bool
    /// The source's trailers; the source is replaced only on the reading thread, before the
    /// transport asks for them again.
    private let trailerSource: Locked<(any TrailingBodyStream)?>

    init(source: InputStream) {
        self.source = source
        isRewindable = (source as? RestartableBodySource)?.isReplayable ?? false
        hasTrailers = (source as? any TrailingBodyStream)?.hasTrailers ?? false
        trailerSource = Locked(source as? any TrailingBodyStream)
        super.init(data: Data())
    }

    var trailerFields: [String: String] { trailerSource.withLock { $0 }?.trailerFields ?? [:] }

    /// Starts the body over from a replay of the source; `false` when it cannot be replayed or
    /// failed. On the thread reading the stream.
    func rewind() -> Bool {
        guard isRewindable, failure == nil, let replay = (source as? RestartableBodySource)?.restartedSource() else { return false }
        source.close()
        source = replay
        trailerSource.withLock { $0 = replay as? any TrailingBodyStream }
        ended = false
        return true
    }

    /// The source's failure, if it failed; read by the task's delegate when the task completes.
    var failure: (any Error)? { failureState.withLock { $0 } }

    override func open() {
        if source.streamStatus == .notOpen { source.open() }
    }

    override func close() {
        source.close()
    }

    override var hasBytesAvailable: Bool { !ended }

    override var streamStatus: Stream.Status {
        if failure != nil { return .error }
        return ended ? .atEnd : source.streamStatus
    }

    override var streamError: (any Error)? { failure }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard !ended else { return failure == nil ? 0 : -1 }
        let count = source.read(buffer, maxLength: len)
        if count < 0 {
            let error = source.streamError ?? RequestSerializationError.bodySourceFailed(reason: "input stream read failed")
            failureState.withLock { $0 = error }
            ended = true
        } else if count == 0 {
            ended = true
        }
        return count
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
