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
    /// `consumed` is where a body of known length ends.
    private static func head(_ bytes: Data, bodyStart: Int) throws(Failure) -> (parsed: Parsed, bodyStart: Int, chunked: Bool) {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, !requestLine[1].isEmpty, requestLine[2].hasPrefix("HTTP/1.") else {
            throw .malformedRequestLine(lines[0])
        }
        let fields = try lines.dropFirst().map(field(of:))
        let value = { (name: String) in fields.first { $0.name.lowercased() == name }?.value }
        let chunked = value("transfer-encoding")?.lowercased().contains("chunked") == true
        var end = bodyStart
        if !chunked, let length = value("content-length") {
            guard let count = Int(length), count >= 0 else { throw .invalidContentLength(length) }
            end = bodyStart + count
        }
        let closes = value("connection")?.lowercased() == "close" || requestLine[2] == "HTTP/1.0"
        let parsed = Parsed(method: String(requestLine[0]), target: String(requestLine[1]), fields: fields, body: Data(), consumed: end, closes: closes)
        return (parsed, bodyStart, chunked)
    }

    /// The field of a header or trailer line.
    private static func field(of line: String) throws(Failure) -> RecordedRequest.Field {
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { throw .malformedField(line) }
        return .init(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// Whether `bytes` holds a complete head asking for `100 Continue` before its body.
    static func expectsContinue(_ bytes: Data) -> Bool {
        let buffer = bytes.startIndex == 0 ? bytes : Data(bytes)
        guard let headEnd = find([13, 10, 13, 10], in: buffer, from: 0) else { return false }
        return String(decoding: buffer[0..<headEnd], as: UTF8.self).lowercased().contains("\r\nexpect: 100-continue")
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
            let sizeText = String(decoding: buffer[offset..<lineEnd], as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else { throw .malformedChunk }
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
                    fields.append(try field(of: String(decoding: buffer[line], as: UTF8.self)))
                }
            }
            guard size <= buffer.count - offset - 2 else { return nil }
            guard buffer[offset + size] == 13, buffer[offset + size + 1] == 10 else { throw .malformedChunk }
            progress.body.append(buffer[offset..<(offset + size)])
            progress.offset = offset + size + 2
        }
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
