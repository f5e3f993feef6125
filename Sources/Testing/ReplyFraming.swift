import Foundation

/// How both tools frame a reply's body, so that a reply means the same from a stub and from the
/// loopback server: which replies carry a body, the `Content-Length` added when no framing field
/// is set, and the body sent (cut short, when asked) in chunks. Pure.
enum ReplyFraming {
    /// Whether a reply with `status` to a request with `method` carries a body.
    static func hasBody(status: Int, method: String) -> Bool {
        method != "HEAD" && status != 204 && status != 304 && !(100..<200).contains(status)
    }

    /// `fields`, with `Content-Length: bodyLength` added unless a framing field is set (or the
    /// status is 204 or 304, which carry none); `Transfer-Encoding: chunked` instead when the
    /// reply has trailers, which only a chunked body can carry.
    static func fields(_ fields: [RecordedRequest.Field], status: Int, bodyLength: Int, chunked: Bool = false) -> [RecordedRequest.Field] {
        let framed = fields.contains { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }
        guard !framed, status != 204, status != 304 else { return fields }
        let framing = chunked ? RecordedRequest.Field(name: "Transfer-Encoding", value: "chunked") : RecordedRequest.Field(name: "Content-Length", value: "\(bodyLength)")
        return fields + [framing]
    }

    /// `chunk` framed as one chunk of a chunked body (RFC 9112, 7.1).
    static func chunkFrame(_ chunk: Data) -> Data {
        Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8)
    }

    /// The last chunk of a chunked body, then `trailers` and the empty line that ends them.
    static func lastChunk(trailers: [RecordedRequest.Field]) -> Data {
        Data(("0\r\n" + trailers.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n").utf8)
    }

    /// The bytes of `body` that are sent (the first `cutAfter`, when set), in chunks of `size`
    /// (one chunk when `nil`); no chunk when nothing is sent.
    static func chunks(of body: Data, size: Int?, cutAfter: Int?) -> [Data] {
        let sent = cutAfter.map { body.prefix($0) } ?? body
        let size = size ?? max(1, sent.count)
        return stride(from: sent.startIndex, to: sent.endIndex, by: size).map { Data(sent[$0..<min($0 + size, sent.endIndex)]) }
    }
}
