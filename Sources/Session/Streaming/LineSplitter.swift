import Foundation

/// Splits a body arriving in chunks into lines, each ended by LF, CRLF or a lone CR (as
/// server-sent events allow; JSON Lines uses LF, with an optional CR), never holding more than
/// one line: a line longer than `maximumLength` bytes is refused rather than buffered. Pure:
/// tested without a server.
public struct LineSplitter: Sendable {
    /// The longest line accepted, in bytes, without its ending.
    public let maximumLength: Int
    private var partial: [UInt8] = []
    /// The last chunk ended with CR: an LF starting the next one belongs to that ending.
    private var afterCR = false

    /// A splitter refusing lines over `maximumLength` bytes (default 1 MiB).
    public init(maximumLength: Int = 1 << 20) {
        self.maximumLength = maximumLength
    }

    /// The lines `chunk` completes, in order, as bytes without their endings. Throws
    /// `StreamingError.lineTooLong` as soon as a line exceeds the limit.
    public mutating func lines(in chunk: Data) throws(StreamingError) -> [Data] {
        var lines: [Data] = []
        let refused = chunk.withUnsafeBytes { bytes -> Bool in
            var start = 0
            var index = 0
            if afterCR, bytes.first == 0x0A {
                start = 1
                index = 1
            }
            afterCR = false
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x0A || byte == 0x0D else {
                    index += 1
                    continue
                }
                if partial.isEmpty {
                    // The whole line is in this chunk: one copy, straight from it.
                    guard index - start <= maximumLength else { return true }
                    lines.append(Data(bytes[start..<index]))
                } else {
                    guard append(bytes[start..<index]) else { return true }
                    lines.append(Data(partial))
                    partial.removeAll(keepingCapacity: true)
                }
                index += 1
                if byte == 0x0D {
                    if index == bytes.count {
                        afterCR = true
                    } else if bytes[index] == 0x0A {
                        index += 1
                    }
                }
                start = index
            }
            return !append(bytes[start..<bytes.count])
        }
        if refused { throw .lineTooLong(limit: maximumLength) }
        return lines
    }

    /// The last line when the body ended without a line ending, if any.
    public mutating func finish() -> Data? {
        defer { partial.removeAll() }
        return partial.isEmpty ? nil : Data(partial)
    }

    /// Adds `bytes` to the line being read; `false` when they would make it too long.
    private mutating func append(_ bytes: Slice<UnsafeRawBufferPointer>) -> Bool {
        guard partial.count + bytes.count <= maximumLength else { return false }
        partial.append(contentsOf: bytes)
        return true
    }
}
