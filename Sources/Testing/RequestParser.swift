import Foundation

/// Reads HTTP/1.1 requests from the bytes a `TestServer` connection received: the request
/// line, the header fields, and the body by its `Content-Length` or its chunked coding. Pure:
/// tested without a socket. One parser per connection: it remembers how far the request in
/// progress has been read (where to look for the head's end, the bytes a body still needs, the
/// chunks decoded so far), so that each byte is examined about once however the request arrives.
struct RequestParser {
    /// Why the bytes are not a request (the connection is then answered 400 and closed).
    enum Failure: Error, Equatable {
        case malformedRequestLine(String)
        case malformedField(String)
        case invalidContentLength(String)
        case malformedChunk
        case unsupportedTransferCoding(String)
        /// Both `Transfer-Encoding` and `Content-Length`, or `Content-Length` fields that
        /// disagree: the body's end is ambiguous (RFC 9112, 6.3), as a request smuggled past
        /// another server would be. Refused, as gunicorn and nginx do.
        case ambiguousFraming(String)
        case headTooLarge
    }

    /// A request and the bytes it took.
    struct Parsed: Equatable {
        var method: String
        var target: String
        var fields: [RecordedRequest.Field]
        var body: Data
        /// The trailer fields after a chunked body.
        var trailers: [RecordedRequest.Field] = []
        var consumed: Int
        /// Whether the client asked for the connection to be closed after the reply.
        var closes: Bool
    }

    /// The longest head read before the request is refused.
    static let maximumHeadLength = 64 * 1024

    /// The request whose head has been read, with where its body starts.
    private var head: (parsed: Parsed, bodyStart: Int, chunked: Bool)?
    /// Where the search for the head's end goes on.
    private var scanned = 0
    /// Nothing more can be read until the bytes are at least this many.
    private var needed = 0
    /// A chunked body decoded so far, and where its next chunk starts.
    private var chunks: (body: Data, offset: Int)?

    /// The first request in `bytes` (what was given before, and more), `nil` when more bytes
    /// are needed. After a request is returned, the next call starts a new one: give it the
    /// bytes after the request's `consumed`.
    mutating func parse(_ bytes: Data) throws(Failure) -> Parsed? {
        guard bytes.count >= needed else { return nil }
        let buffer = bytes.startIndex == 0 ? bytes : Data(bytes)
        if head == nil {
            guard let headEnd = Self.find([13, 10, 13, 10], in: buffer, from: scanned) else {
                if buffer.count > Self.maximumHeadLength { throw .headTooLarge }
                scanned = max(0, buffer.count - 3)
                needed = buffer.count + 1
                return nil
            }
            head = try Self.head(buffer[0..<headEnd], bodyStart: headEnd + 4)
        }
        guard let (read, bodyStart, chunked) = head else { return nil }
        var parsed = read
        if chunked {
            var progress = chunks ?? (Data(), bodyStart)
            defer { chunks = progress }
            guard let end = try Self.decodeChunks(buffer, progress: &progress, trailers: &parsed.trailers) else {
                needed = buffer.count + 1
                return nil
            }
            parsed.body = progress.body
            parsed.consumed = end
        } else {
            guard buffer.count >= parsed.consumed else {
                needed = parsed.consumed
                return nil
            }
            parsed.body = buffer[bodyStart..<parsed.consumed]
        }
        self = RequestParser()
        return parsed
    }

    /// The request of the head `bytes` (request line and fields), its body not read yet:
    /// `consumed` is where a body of known length ends. Read as bytes: a delimiter followed by
    /// a combining mark is one `Character`, which a search of the text would pass over.
    private static func head(_ bytes: Data, bodyStart: Int) throws(Failure) -> (parsed: Parsed, bodyStart: Int, chunked: Bool) {
        let lines = Self.lines(of: [UInt8](bytes))
        let requestLine = lines[0].split(separator: 0x20, omittingEmptySubsequences: false)
        // The version is `HTTP/1.` and one digit (RFC 9112, 2.3).
        let version = requestLine.count == 3 ? requestLine[2] : []
        guard requestLine.count == 3, !requestLine[0].isEmpty, !requestLine[1].isEmpty, version.count == 8, version.starts(with: "HTTP/1.".utf8),
              let digit = version.last, (0x30...0x39).contains(digit) else {
            throw .malformedRequestLine(String(decoding: lines[0], as: UTF8.self))
        }
        let fields = try lines.dropFirst().map { line throws(Failure) in try field(of: line) }
        let value = { (name: String) in fields.first { equalIgnoringASCIICase($0.name, name) }?.value }
        var chunked = false
        if let codings = value("transfer-encoding") {
            // The body is chunked when chunked is the last coding; with any other last coding
            // its length cannot be known (RFC 9112, 6.3).
            guard let last = elements(of: codings).last, equalIgnoringASCIICase(last, "chunked") else {
                throw .unsupportedTransferCoding(codings)
            }
            chunked = true
        }
        let lengths = fields.filter { equalIgnoringASCIICase($0.name, "content-length") }.map(\.value)
        if chunked, !lengths.isEmpty { throw .ambiguousFraming("Transfer-Encoding with Content-Length") }
        if Set(lengths).count > 1 { throw .ambiguousFraming("Content-Length: " + lengths.joined(separator: ", ")) }
        var end = bodyStart
        if !chunked, let length = value("content-length") {
            // Digits only, and a count the buffer's indices can reach: the server's arithmetic
            // never traps on what a client sends.
            guard !length.isEmpty, length.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let count = Int(length),
                  case let (sum, overflow) = bodyStart.addingReportingOverflow(count), !overflow else {
                throw .invalidContentLength(length)
            }
            end = sum
        }
        let closes = value("connection").map { elements(of: $0).contains { equalIgnoringASCIICase($0, "close") } } == true
            || version.elementsEqual("HTTP/1.0".utf8)
        let parsed = Parsed(
            method: String(decoding: requestLine[0], as: UTF8.self), target: String(decoding: requestLine[1], as: UTF8.self), fields: fields,
            body: Data(), consumed: end, closes: closes)
        return (parsed, bodyStart, chunked)
    }

    /// The lines of `bytes`, split at each CRLF.
    private static func lines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10 {
                lines.append(bytes[start..<index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[start...])
        return lines
    }

    /// The field of a header or trailer line: the name before its first colon, the value after
    /// it without the spaces and tabs around it.
    private static func field<Line: Collection<UInt8>>(of line: Line) throws(Failure) -> RecordedRequest.Field {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon != line.startIndex else {
            throw .malformedField(String(decoding: line, as: UTF8.self))
        }
        return .init(name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: trimmed(line[line.index(after: colon)...]), as: UTF8.self))
    }

    /// `bytes` without the spaces and tabs at either end.
    private static func trimmed<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return bytes[bytes.endIndex...] }
        var end = bytes.index(after: first)
        var index = end
        while index != bytes.endIndex {
            if !isSpace(bytes[index]) { end = bytes.index(after: index) }
            index = bytes.index(after: index)
        }
        return bytes[first..<end]
    }

    /// The elements of a comma-separated field value, trimmed.
    private static func elements(of value: String) -> [String] {
        Array(value.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { String(decoding: trimmed($0), as: UTF8.self) }
    }

    /// Whether `text` is `other` in any ASCII case, compared byte by byte.
    private static func equalIgnoringASCIICase(_ text: String, _ other: String) -> Bool {
        text.utf8.count == other.utf8.count && zip(text.utf8, other.utf8).allSatisfy { a, b in
            a == b || (a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20))
        }
    }

    /// Whether `bytes` holds a complete head asking for `100 Continue` before its body: an
    /// `Expect` field whose value is `100-continue` in any case.
    static func expectsContinue(_ bytes: Data) -> Bool {
        let buffer = bytes.startIndex == 0 ? bytes : Data(bytes)
        guard let headEnd = find([13, 10, 13, 10], in: buffer, from: 0) else { return false }
        return lines(of: [UInt8](buffer[0..<headEnd])).dropFirst().contains { line in
            guard let field = try? field(of: line) else { return false }
            return equalIgnoringASCIICase(field.name, "expect") && equalIgnoringASCIICase(field.value, "100-continue")
        }
    }

    /// Decodes the chunks of a chunked body complete in `buffer` from `progress.offset` on,
    /// appending them to `progress.body`; then its trailer fields. Returns where the body ends,
    /// `nil` when it is incomplete (`progress` is then where the next call goes on).
    private static func decodeChunks(
        _ buffer: Data, progress: inout (body: Data, offset: Int), trailers: inout [RecordedRequest.Field]
    ) throws(Failure) -> Int? {
        while true {
            var offset = progress.offset
            guard let lineEnd = find([13, 10], in: buffer, from: offset) else { return nil }
            guard let size = chunkSize(buffer[offset..<lineEnd]) else { throw .malformedChunk }
            offset = lineEnd + 2
            if size == 0 {
                // Trailer fields, then the empty line; read whole once they are all there.
                var fields: [RecordedRequest.Field] = []
                while true {
                    guard let trailerEnd = find([13, 10], in: buffer, from: offset) else { return nil }
                    let line = offset..<trailerEnd
                    offset = trailerEnd + 2
                    if line.isEmpty {
                        trailers = fields
                        return offset
                    }
                    fields.append(try field(of: buffer[line]))
                }
            }
            guard size <= buffer.count - offset - 2 else { return nil }
            guard buffer[offset + size] == 13, buffer[offset + size + 1] == 10 else { throw .malformedChunk }
            progress.body.append(buffer[offset..<(offset + size)])
            progress.offset = offset + size + 2
        }
    }

    /// The size of a chunk-size line (`1a`, `1a;name=value`): hexadecimal digits only, before
    /// any extension, in an `Int`; `nil` for anything else (a sign, no digit, a size past
    /// `Int.max`).
    private static func chunkSize(_ line: Data) -> Int? {
        let digits = trimmed(line.prefix { $0 != UInt8(ascii: ";") })
        guard !digits.isEmpty else { return nil }
        var size = 0
        for byte in digits {
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
            guard !overflow else { return nil }
            size = shifted + digit
        }
        return size
    }

    /// Where `needle` first occurs in `buffer` (indexed from 0) at or after `start`.
    private static func find(_ needle: [UInt8], in buffer: Data, from start: Int) -> Int? {
        guard start < buffer.count else { return nil }
        return buffer.withUnsafeBytes { bytes -> Int? in
            var index = start
            while index + needle.count <= bytes.count {
                if bytes[index] == needle[0], needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) { return index }
                index += 1
            }
            return nil
        }
    }
}
