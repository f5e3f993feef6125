import Foundation

/// What a `TestServer` answers a request with: a status, header fields and a body, with the
/// faults only a real socket shows scripted on top (a delay before the answer, a body dripped in
/// chunks with pauses between them, a connection cut after some body bytes), or raw bytes
/// written as given. Value type; build one with the static functions and the modifiers.
public struct ServerReply: Sendable {
    /// One step of a raw reply.
    public enum Step: Sendable, Equatable {
        /// Writes these bytes.
        case send(Data)
        /// Waits this many seconds.
        case pause(TimeInterval)
        /// Closes the connection at once.
        case close
    }

    /// The status code; the reason phrase is the usual one.
    public var status: Int
    /// The header fields, in order. `Content-Length` is added for the body unless one is set
    /// (or `Transfer-Encoding` is).
    public var fields: [RecordedRequest.Field]
    /// The body (not written to a HEAD request, nor with 204 or 304).
    public var body: Data
    /// Seconds to wait before the first byte of the reply. Default 0.
    public var delay: TimeInterval = 0
    /// The body written in chunks of `size` bytes with `interval` seconds between them;
    /// `nil` to write it at once. Default `nil`.
    public var drip: (size: Int, interval: TimeInterval)?
    /// Body bytes written before the connection is closed abruptly; `nil` to write the whole
    /// body. Default `nil`.
    public var cutAfterBodyBytes: Int?
    /// The trailer fields after the body, in order; a reply with trailers has a chunked body.
    /// Default none.
    public var trailers: [RecordedRequest.Field] = []
    /// The bytes written instead of a formed reply, when set.
    public var raw: [Step]?

    /// A reply with `status`, `fields` and `body`.
    public static func status(_ status: Int, fields: [String: String] = [:], body: Data = Data()) -> ServerReply {
        ServerReply(status: status, fields: fields.sorted { $0.key < $1.key }.map { RecordedRequest.Field(name: $0.key, value: $0.value) }, body: body)
    }

    /// A reply with `text` as a UTF-8 `text/plain` body.
    public static func text(_ text: String, status: Int = 200) -> ServerReply {
        .status(status, fields: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// A reply with `value` encoded as an `application/json` body.
    public static func json<Value: Encodable>(_ value: Value, status: Int = 200, encoder: JSONEncoder = JSONEncoder()) throws -> ServerReply {
        .status(status, fields: ["Content-Type": "application/json"], body: try encoder.encode(value))
    }

    /// Raw bytes, pauses and closes, written as given (a malformed response, an unsolicited one,
    /// a close inside the head).
    public static func raw(_ steps: [Step]) -> ServerReply {
        var reply = ServerReply(status: 0, fields: [], body: Data())
        reply.raw = steps
        return reply
    }

    /// This reply after `seconds` of silence.
    public func delayed(by seconds: TimeInterval) -> ServerReply {
        var reply = self
        reply.delay = seconds
        return reply
    }

    /// This reply with its body written `size` bytes at a time, `interval` seconds apart.
    public func dripped(_ size: Int, every interval: TimeInterval) -> ServerReply {
        var reply = self
        reply.drip = (max(1, size), interval)
        return reply
    }

    /// This reply with the connection closed after `count` bytes of its body.
    public func cut(afterBodyBytes count: Int) -> ServerReply {
        var reply = self
        reply.cutAfterBodyBytes = max(0, count)
        return reply
    }

    /// This reply with `fields` as trailers after its body (sent chunked).
    public func withTrailers(_ fields: [String: String]) -> ServerReply {
        var reply = self
        reply.trailers = fields.sorted { $0.key < $1.key }.map { RecordedRequest.Field(name: $0.key, value: $0.value) }
        return reply
    }

    /// The steps that write this reply to a request with `method`.
    func steps(forMethod method: String) -> [Step] {
        if let raw { return (delay > 0 ? [.pause(delay)] : []) + raw }
        var head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n"
        let chunked = !trailers.isEmpty
        for field in ReplyFraming.fields(fields, status: status, bodyLength: body.count, chunked: chunked) { head += "\(field.name): \(field.value)\r\n" }
        head += "\r\n"
        var steps: [Step] = delay > 0 ? [.pause(delay)] : []
        steps.append(.send(Data(head.utf8)))
        guard ReplyFraming.hasBody(status: status, method: method) else { return steps }
        for (index, chunk) in ReplyFraming.chunks(of: body, size: drip?.size, cutAfter: cutAfterBodyBytes).enumerated() {
            if index > 0, let drip { steps.append(.pause(drip.interval)) }
            steps.append(.send(chunked ? ReplyFraming.chunkFrame(chunk) : chunk))
        }
        if cutAfterBodyBytes != nil { return steps + [.close] }
        return chunked ? steps + [.send(ReplyFraming.lastChunk(trailers: trailers))] : steps
    }

    static func reason(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

extension ServerReply {
    /// The server's form of a stub's `reply`, so that one reply serves both tools: its status,
    /// fields, body, trailers, delay, chunks (written with their pauses) and cut; a failure is a connection
    /// closed without a reply.
    public init(_ reply: StubReply) {
        guard reply.failure == nil else {
            self = ServerReply.raw([.close]).delayed(by: reply.delay)
            return
        }
        self.init(status: reply.status, fields: reply.fields, body: reply.body)
        delay = reply.delay
        drip = reply.chunks
        cutAfterBodyBytes = reply.cutAfterBodyBytes
        trailers = reply.trailers
    }
}
