import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The input stream of a multipart body. It reads each source (bytes, a file, an input stream)
/// only when asked, straight into the reader's buffer, on the reader's own thread, so memory
/// stays flat whatever the file sizes.
///
/// A source that delivers fewer bytes than it declared, or fails, puts the stream in the
/// `.error` state with a `RequestSerializationError` in `streamError`: the body is never
/// silently short. `hasBytesAvailable` stays `true` until the last byte was read, because
/// URLSession on Linux takes `false` as the end of the body.
///
/// `contentLength` is the exact body length. The request built by
/// `HTTPRequestSerializer.multipartFormRequest(...)` does not carry it as `Content-Length`:
/// URLSession on Linux sends every stream body chunked, and adding `Content-Length` as well
/// makes strict servers reject the request.
/// AFNetworking: `AFMultipartBodyStream`.
public final class MultipartBodyStream: InputStream {
    /// Bandwidth throttling: at most `packetSize` bytes per read, `delay` seconds between reads.
    struct Throttle {
        let packetSize: Int
        let delay: TimeInterval
    }

    /// The exact number of bytes the stream delivers.
    public let contentLength: UInt64

    private let segments: [BodySegment]
    private let throttle: Throttle?
    private var segmentIndex = 0
    private var segmentOffset: UInt64 = 0
    private var fileDescriptor: Int32 = -1
    private var status: Stream.Status = .notOpen
    private var failure: RequestSerializationError?
    private var totalRead: UInt64 = 0

    init(segments: [BodySegment], throttle: Throttle?) {
        self.segments = segments
        self.throttle = throttle
        self.contentLength = segments.reduce(0) { $0 + $1.length }
        super.init(data: Data())
    }

    deinit {
        closeCurrentSource()
    }

    /// `.error` once a source failed; `.atEnd` after the last byte.
    public override var streamStatus: Stream.Status { status }

    /// The `RequestSerializationError` that stopped the stream, if any.
    public override var streamError: (any Error)? { failure }

    /// `true` until the last byte was read: URLSession on Linux ends the body at the first `false`.
    public override var hasBytesAvailable: Bool {
        (status == .open || status == .reading) && totalRead < contentLength
    }

    /// A stream of one file of `length` bytes, read from disk as it is sent, that can be
    /// replayed: how the manager sends an upload from a file.
    package static func file(_ url: URL, length: UInt64) -> MultipartBodyStream {
        MultipartBodyStream(segments: [.file(url, length: length)], throttle: nil)
    }

    /// Whether `replay()` can make the body again: no part is an `InputStream`, which can be
    /// read only once.
    public var isReplayable: Bool {
        !segments.contains { segment in
            if case .stream = segment { return true }
            return false
        }
    }

    /// A new stream of the same parts from the start, to send the body again (a retry, a 307 or
    /// 308 redirect); `nil` when a part is an `InputStream`.
    public func replay() -> MultipartBodyStream? {
        isReplayable ? MultipartBodyStream(segments: segments, throttle: throttle) : nil
    }

    /// Opens the stream; sources are opened only when reading reaches them.
    public override func open() {
        if status == .notOpen { status = contentLength == 0 ? .atEnd : .open }
    }

    /// Closes the source being read, if any.
    public override func close() {
        closeCurrentSource()
        if status != .error { status = .closed }
    }

    /// Always `false`: bytes are produced by `read`, never held in a buffer.
    public override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool {
        false
    }

    /// Fills `buffer` with up to `len` bytes (fewer under throttling) from the sources in order;
    /// returns 0 at the end and -1 once a source failed (see `streamError`).
    public override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        switch status {
        case .open, .reading: break
        case .error: return -1
        default: return 0
        }
        var limit = len
        if let throttle {
            if totalRead > 0, throttle.delay > 0 { Thread.sleep(forTimeInterval: throttle.delay) }
            limit = min(limit, throttle.packetSize)
        }
        status = .reading
        var filled = 0
        do {
            while filled < limit, segmentIndex < segments.count {
                let count = try readCurrentSegment(into: buffer + filled, maxLength: limit - filled)
                filled += count
                segmentOffset += UInt64(count)
                if segmentOffset == segments[segmentIndex].length {
                    closeCurrentSource()
                    segmentIndex += 1
                    segmentOffset = 0
                }
            }
        } catch {
            closeCurrentSource()
            failure = error as? RequestSerializationError ?? .bodySourceFailed(reason: String(describing: error))
            status = .error
            return -1
        }
        totalRead += UInt64(filled)
        status = segmentIndex == segments.count ? .atEnd : .open
        return filled
    }

    /// Reads at most `maxLength` bytes of the current segment; never returns 0 for a segment
    /// with bytes left (a source that has nothing more is an error).
    private func readCurrentSegment(into buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) throws -> Int {
        let segment = segments[segmentIndex]
        let wanted = Int(min(UInt64(maxLength), segment.length - segmentOffset))
        guard wanted > 0 else { return 0 }
        switch segment {
        case .bytes(let data):
            let start = data.startIndex + Int(segmentOffset)
            data.copyBytes(to: buffer, from: start..<(start + wanted))
            return wanted
        case .file(let url, let length):
            if fileDescriptor < 0 {
                fileDescriptor = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
                guard fileDescriptor >= 0 else { throw RequestSerializationError.fileNotReachable(url) }
            }
            var count: Int
            repeat { count = Glibc.read(fileDescriptor, buffer, wanted) } while count < 0 && errno == EINTR
            if count < 0 { throw RequestSerializationError.bodySourceFailed(reason: String(cString: strerror(errno))) }
            if count == 0 { throw RequestSerializationError.bodySourceEndedEarly(expected: length, received: segmentOffset) }
            return count
        case .stream(let stream, let length):
            if stream.streamStatus == .notOpen { stream.open() }
            let count = stream.read(buffer, maxLength: wanted)
            if count < 0 {
                throw RequestSerializationError.bodySourceFailed(
                    reason: stream.streamError.map { String(describing: $0) } ?? "input stream read failed")
            }
            if count == 0 { throw RequestSerializationError.bodySourceEndedEarly(expected: length, received: segmentOffset) }
            return count
        }
    }

    private func closeCurrentSource() {
        if fileDescriptor >= 0 {
            Glibc.close(fileDescriptor)
            fileDescriptor = -1
        }
        if segmentIndex < segments.count, case .stream(let stream, _) = segments[segmentIndex],
           stream.streamStatus != .notOpen, stream.streamStatus != .closed {
            stream.close()
        }
    }
}
