import Foundation

/// A formed reply framed for a request, the one reading of a `StubReply` that both tools play,
/// so that a reply means the same from a stub and from the loopback server: the header fields
/// with the framing field added, the body bytes sent (none when the reply carries no body; cut
/// short, when asked) in chunks, and the trailers. Pure.
struct ReplyFraming {
    /// The reply's fields, with `Content-Length` added unless a framing field is set (or the
    /// status is 204 or 304, which carry none); `Transfer-Encoding: chunked` instead when the
    /// reply has trailers, which only a chunked body can carry.
    let fields: [RecordedRequest.Field]
    /// Whether the reply carries a body (not to a HEAD request, nor with 1xx, 204 or 304).
    let hasBody: Bool
    /// Whether the body goes in chunked framing (the reply has trailers).
    let isChunked: Bool
    /// The body bytes sent, in the reply's chunks (one when it has none); none when nothing is sent.
    let chunks: [Data]
    /// Whether the connection is cut after `chunks`.
    let cut: Bool
    /// The trailer fields sent after the body; none when there is no body or it is cut.
    let trailers: [RecordedRequest.Field]

    /// `reply` to a request with `method`.
    init(_ reply: StubReply, method: String) {
        isChunked = !reply.trailers.isEmpty
        let framed = reply.fields.contains { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }
        if framed || reply.status == 204 || reply.status == 304 {
            fields = reply.fields
        } else {
            fields = reply.fields + [isChunked ? .init(name: "Transfer-Encoding", value: "chunked") : .init(name: "Content-Length", value: "\(reply.body.count)")]
        }
        hasBody = method != "HEAD" && reply.status != 204 && reply.status != 304 && !(100..<200).contains(reply.status)
        let sent = reply.cutAfterBodyBytes.map { reply.body.prefix($0) } ?? reply.body
        let size = reply.chunks?.size ?? max(1, sent.count)
        chunks = hasBody ? stride(from: sent.startIndex, to: sent.endIndex, by: size).map { Data(sent[$0..<min($0 + size, sent.endIndex)]) } : []
        cut = hasBody && reply.cutAfterBodyBytes != nil
        trailers = hasBody && !cut ? reply.trailers : []
    }
}
