import Foundation

/// Reads HTTP/1.1 requests from the bytes a `TestServer` connection received: the request
/// line, the header fields, and the body by its `Content-Length` or its chunked coding. Pure:
/// tested without a socket.
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

    /// The first request in `bytes`, `nil` when more bytes are needed.
    static func parse(_ bytes: Data) throws(Failure) -> Parsed? {
        let buffer = [UInt8](bytes)
        guard let headEnd = find([13, 10, 13, 10], in: buffer, from: 0) else {
            if buffer.count > maximumHeadLength { throw .headTooLarge }
            return nil
        }
        let lines = String(decoding: buffer[0..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, !requestLine[1].isEmpty, requestLine[2].hasPrefix("HTTP/1.") else {
            throw .malformedRequestLine(lines[0])
        }
        let fields = try lines.dropFirst().map(field(of:))
        let value = { (name: String) in fields.first { $0.name.lowercased() == name }?.value }
        let bodyStart = headEnd + 4
        var body = Data()
        var trailers: [RecordedRequest.Field] = []
        var end = bodyStart
        if value("transfer-encoding")?.lowercased().contains("chunked") == true {
            guard let decoded = try decodeChunks(buffer, from: bodyStart) else { return nil }
            (body, trailers, end) = decoded
        } else if let length = value("content-length") {
            guard let count = Int(length), count >= 0 else { throw .invalidContentLength(length) }
            guard buffer.count - bodyStart >= count else { return nil }
            body = Data(buffer[bodyStart..<(bodyStart + count)])
            end = bodyStart + count
        }
        let closes = value("connection")?.lowercased() == "close" || requestLine[2] == "HTTP/1.0"
        return Parsed(
            method: String(requestLine[0]), target: String(requestLine[1]), fields: fields, body: body, trailers: trailers, consumed: end,
            closes: closes)
    }

    /// The field of a header or trailer line.
    private static func field(of line: String) throws(Failure) -> RecordedRequest.Field {
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { throw .malformedField(line) }
        return .init(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// Whether `bytes` holds a complete head asking for `100 Continue` before its body.
    static func expectsContinue(_ bytes: Data) -> Bool {
        let buffer = [UInt8](bytes)
        guard let headEnd = find([13, 10, 13, 10], in: buffer, from: 0) else { return false }
        return String(decoding: buffer[0..<headEnd], as: UTF8.self).lowercased().contains("\r\nexpect: 100-continue")
    }

    /// The decoded chunked body starting at `start`, its trailer fields and where it ends, `nil`
    /// when incomplete.
    private static func decodeChunks(_ buffer: [UInt8], from start: Int) throws(Failure) -> (Data, [RecordedRequest.Field], Int)? {
        var body = Data()
        var offset = start
        while true {
            guard let lineEnd = find([13, 10], in: buffer, from: offset) else { return nil }
            let sizeText = String(decoding: buffer[offset..<lineEnd], as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else { throw .malformedChunk }
            offset = lineEnd + 2
            if size == 0 {
                // Trailer fields, then the empty line.
                var trailers: [RecordedRequest.Field] = []
                while true {
                    guard let trailerEnd = find([13, 10], in: buffer, from: offset) else { return nil }
                    let line = offset..<trailerEnd
                    offset = trailerEnd + 2
                    if line.isEmpty { return (body, trailers, offset) }
                    trailers.append(try field(of: String(decoding: buffer[line], as: UTF8.self)))
                }
            }
            guard buffer.count >= offset + size + 2 else { return nil }
            body.append(contentsOf: buffer[offset..<(offset + size)])
            guard buffer[offset + size] == 13, buffer[offset + size + 1] == 10 else { throw .malformedChunk }
            offset += size + 2
        }
    }

    private static func find(_ needle: [UInt8], in buffer: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= buffer.count {
            if buffer[index] == needle[0], Array(buffer[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}
