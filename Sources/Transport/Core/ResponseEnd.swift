/// Follows a response's framing through the raw body bytes libcurl reads (before it removes the
/// chunked framing or decodes the content), to tell when the response has ended. libcurl 7.88
/// keeps a transfer whose upload is paused (its body source has nothing yet) running after the
/// response ended: it finishes a transfer only once both directions are done, and stops
/// watching the connection. So a final response that ends before the request body (an early
/// 413, a full-duplex echo ending first) reached the task only at its idle timeout; with this,
/// the transport ends such a transfer itself (AsyncHTTPClient delivers such a response too,
/// and closes the connection).
struct ResponseEnd: Equatable {
    /// How the response's body is delimited (RFC 9112 section 6.3).
    enum Framing: Equatable {
        /// No body: a response to HEAD, a 204 or a 304.
        case empty
        /// A body of this many bytes (`Content-Length`).
        case length(Int64)
        /// A chunked body, ended by its last chunk and trailer section.
        case chunked
        /// A body ended by the connection's close (`connectionClosed()`).
        case untilClose
    }

    /// Where the chunked framing is.
    private enum Chunk: Equatable {
        /// In a chunk's size line: its value so far, and whether the size's digits ended (an
        /// extension follows).
        case size(Int64, digitsEnded: Bool, digits: Int)
        /// In a chunk's data, with this many bytes left.
        case data(Int64)
        /// After a chunk's data, before its line end.
        case dataEnd
        /// At the start of a trailer line (or of the empty line ending the section).
        case trailerLineStart
        /// Inside a trailer line.
        case trailerLine
        /// The framing cannot be followed (libcurl fails such a response itself).
        case lost
    }

    private var remaining: Int64
    private var chunk: Chunk
    private let framing: Framing
    /// Whether the response has ended.
    private(set) var isComplete: Bool

    init(framing: Framing) {
        self.framing = framing
        remaining = 0
        chunk = .size(0, digitsEnded: false, digits: 0)
        switch framing {
        case .empty: isComplete = true
        case .length(let length):
            remaining = max(0, length)
            isComplete = remaining == 0
        case .chunked, .untilClose: isComplete = false
        }
    }

    /// The framing of a final response with status `status` and the `Transfer-Encoding` and
    /// `Content-Length` values `transferEncoding` and `contentLength` (every line's, joined), to
    /// a request whose method is HEAD when `isHead`. The length is read by `ContentLength`, the
    /// rule `ResponseFraming` checked the head by: `5, 5` is 5, as libcurl frames it. A length
    /// that rule refuses is thrown rather than taken for a body delimited by the close, which
    /// would keep a response whose connection stays open waiting for the idle timeout.
    static func framing(status: Int, isHead: Bool, transferEncoding: String?, contentLength: String?) throws(ResponseFramingError) -> Framing {
        if isHead || status == 204 || status == 304 || (100..<200).contains(status) { return .empty }
        if let transferEncoding {
            return lastCodingIsChunked(transferEncoding) ? .chunked : .untilClose
        }
        guard let contentLength else { return .untilClose }
        return .length(try ContentLength.length(of: contentLength).get())
    }

    /// Whether the last transfer coding listed is `chunked` (ASCII, any case).
    private static func lastCodingIsChunked(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        let start = (bytes.lastIndex(of: UInt8(ascii: ",")).map { $0 + 1 }) ?? 0
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        let coding = bytes[start...].drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return coding.count == 7 && zip(coding, "chunked".utf8).allSatisfy { ($0 | 0x20) == $1 }
    }

    /// The server closed the connection: a body delimited by the close has ended.
    mutating func connectionClosed() {
        if framing == .untilClose { isComplete = true }
    }

    /// Follows `bytes`, the next raw bytes of the body.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        guard !isComplete else { return }
        switch framing {
        case .empty, .untilClose:
            return
        case .length:
            remaining -= min(remaining, Int64(bytes.count))
            isComplete = remaining == 0
        case .chunked:
            var index = 0
            while index < bytes.count, !isComplete, chunk != .lost {
                index += step(bytes, at: index)
            }
        }
    }

    /// Follows the chunked framing from `bytes[index]`; how many bytes it went over.
    private mutating func step(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let byte = bytes[index]
        switch chunk {
        case .size(let value, let digitsEnded, let digits):
            if byte == 0x0A {
                guard digits > 0 else {
                    chunk = .lost
                    return 1
                }
                chunk = value == 0 ? .trailerLineStart : .data(value)
            } else if !digitsEnded, let digit = Self.hexValue(byte) {
                let (times, overflow) = value.multipliedReportingOverflow(by: 16)
                let (sum, overflowAgain) = times.addingReportingOverflow(digit)
                chunk = overflow || overflowAgain ? .lost : .size(sum, digitsEnded: false, digits: digits + 1)
            } else {
                // An extension, or the CR of the line end.
                chunk = .size(value, digitsEnded: true, digits: digits)
            }
            return 1
        case .data(let left):
            let count = min(left, Int64(bytes.count - index))
            chunk = count == left ? .dataEnd : .data(left - count)
            return Int(count)
        case .dataEnd:
            if byte == 0x0A {
                chunk = .size(0, digitsEnded: false, digits: 0)
            } else if byte != 0x0D {
                chunk = .lost
            }
            return 1
        case .trailerLineStart:
            if byte == 0x0A {
                isComplete = true
            } else if byte != 0x0D {
                chunk = .trailerLine
            }
            return 1
        case .trailerLine:
            if byte == 0x0A { chunk = .trailerLineStart }
            return 1
        case .lost:
            return bytes.count - index
        }
    }

    private static func hexValue(_ byte: UInt8) -> Int64? {
        switch byte {
        case 0x30...0x39: Int64(byte - 0x30)
        case 0x41...0x46: Int64(byte - 0x41 + 10)
        case 0x61...0x66: Int64(byte - 0x61 + 10)
        default: nil
        }
    }
}
