import Foundation

/// What a `TestServer` answers a request with: the same replies as a `StubTransport`'s
/// (`StubReply`), under the name the server's tests have used; `drip`, `dripped(_:every:)` and
/// `init(_:)` are the server's names for what the type already has.
public typealias ServerReply = StubReply

extension StubReply {
    /// The body written in chunks of `size` bytes with `interval` seconds between them; `nil` to
    /// write it at once. Default `nil`. The server's name for `chunks`.
    public var drip: (size: Int, interval: TimeInterval)? {
        get { chunks }
        set { chunks = newValue }
    }

    /// `reply` itself: a stub's reply serves the server as it is (its chunks dripped, its cut a
    /// close, a failure a connection closed without a reply). Kept from when the two tools had
    /// reply types of their own, so that code converting one into the other still compiles.
    public init(_ reply: StubReply) {
        self = reply
    }

    /// This reply with its body written `size` bytes at a time, `interval` seconds apart: the
    /// server's name for `chunked(_:every:)`.
    public func dripped(_ size: Int, every interval: TimeInterval) -> StubReply {
        chunked(size, every: interval)
    }

    /// The steps that write this reply to a request with `method`.
    func steps(forMethod method: String) -> [Step] {
        let wait: [Step] = delay > 0 ? [.pause(delay)] : []
        if let raw { return wait + raw }
        // A socket has no way to say which error a failure is: the client sees it close.
        if failure != nil { return wait + [.close] }
        let framing = ReplyFraming(self, method: method)
        let head = "HTTP/1.1 \(status) \(Self.reason(for: status))\r\n" + framing.fields.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
        var steps = wait + [.send(Data(head.utf8))]
        for (index, chunk) in framing.chunks.enumerated() {
            if index > 0, let chunks { steps.append(.pause(chunks.interval)) }
            steps.append(.send(framing.isChunked ? Self.chunkFrame(chunk) : chunk))
        }
        if framing.cut { return steps + [.close] }
        return framing.isChunked && framing.hasBody ? steps + [.send(Self.lastChunk(trailers: framing.trailers))] : steps
    }

    /// `chunk` framed as one chunk of a chunked body (RFC 9112, 7.1).
    private static func chunkFrame(_ chunk: Data) -> Data {
        Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8)
    }

    /// The last chunk of a chunked body, then `trailers` and the empty line that ends them.
    private static func lastChunk(trailers: [RecordedRequest.Field]) -> Data {
        Data(("0\r\n" + trailers.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n").utf8)
    }

    private static func reason(for status: Int) -> String {
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
