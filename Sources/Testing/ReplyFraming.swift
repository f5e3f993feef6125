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
    /// status is 204 or 304, which carry none).
    static func fields(_ fields: [RecordedRequest.Field], status: Int, bodyLength: Int) -> [RecordedRequest.Field] {
        let framed = fields.contains { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }
        guard !framed, status != 204, status != 304 else { return fields }
        return fields + [RecordedRequest.Field(name: "Content-Length", value: "\(bodyLength)")]
    }

    /// The bytes of `body` that are sent (the first `cutAfter`, when set), in chunks of `size`
    /// (one chunk when `nil`); no chunk when nothing is sent.
    static func chunks(of body: Data, size: Int?, cutAfter: Int?) -> [Data] {
        let sent = cutAfter.map { body.prefix($0) } ?? body
        let size = size ?? max(1, sent.count)
        return stride(from: sent.startIndex, to: sent.endIndex, by: size).map { Data(sent[$0..<min($0 + size, sent.endIndex)]) }
    }
}
