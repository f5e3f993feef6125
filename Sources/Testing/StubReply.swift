import AFNetworking
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a `StubTransport` or a `TestServer` answers a request with (`ServerReply` is this type
/// under the server's name, so one reply serves both tools): a response (status, header fields,
/// body), or a transport failure, with a delay (which a cancelled task stops waiting for), a body
/// delivered in chunks with pauses (for progress, or a server that drips), a connection cut after
/// some body bytes, or trailer fields after the body; or, for the server only, raw bytes written
/// as given. Value type; build one with the static functions and the modifiers.
public struct StubReply: Sendable {
    /// One step of a raw reply.
    public enum Step: Sendable, Equatable {
        /// Writes these bytes.
        case send(Data)
        /// Waits this many seconds.
        case pause(TimeInterval)
        /// Closes the connection at once.
        case close
    }

    /// The status code; the server writes the usual reason phrase with it.
    public var status: Int
    /// The header fields, in order. `Content-Length` is added for the body unless one is set
    /// (or `Transfer-Encoding` is).
    public var fields: [RecordedRequest.Field]
    /// The body (not delivered to a HEAD request, nor with 204 or 304).
    public var body: Data
    /// The attempt fails with this error instead of a response, when set (a retry policy sees it
    /// as a transport failure; the server closes the connection without a reply).
    public var failure: URLError?
    /// Seconds before the answer. Default 0.
    public var delay: TimeInterval = 0
    /// The body delivered `size` bytes at a time, `interval` seconds apart; `nil`: at once.
    /// Default `nil`.
    public var chunks: (size: Int, interval: TimeInterval)?
    /// Body bytes delivered before the connection is cut (`URLError.networkConnectionLost`);
    /// `nil` to deliver the whole body. Default `nil`.
    public var cutAfterBodyBytes: Int?
    /// The trailer fields after the body (`ResponseBody.trailers`), in order; the body is framed
    /// as chunked. Default none.
    public var trailers: [RecordedRequest.Field] = []
    /// The bytes the server writes instead of a formed reply, when set; a stub, which has no
    /// socket to write them to, fails the attempt with `URLError.badServerResponse` instead.
    public var raw: [Step]?

    /// A response with `status`, `fields` and `body`.
    public static func status(_ status: Int, fields: [String: String] = [:], body: Data = Data()) -> StubReply {
        StubReply(status: status, fields: sorted(fields), body: body)
    }

    /// A response with `text` as a UTF-8 `text/plain` body.
    public static func text(_ text: String, status: Int = 200) -> StubReply {
        .status(status, fields: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// A response with `value` encoded as an `application/json` body.
    public static func json<Value: Encodable>(_ value: Value, status: Int = 200, encoder: JSONEncoder = JSONEncoder()) throws -> StubReply {
        .status(status, fields: ["Content-Type": "application/json"], body: try encoder.encode(value))
    }

    /// A response with the contents of the file at `url` as its body, of `contentType`.
    public static func file(_ url: URL, contentType: String = "application/octet-stream", status: Int = 200) throws -> StubReply {
        .status(status, fields: ["Content-Type": contentType], body: try Data(contentsOf: url))
    }

    /// A redirect to `location` (absolute, or relative to the request), followed by the
    /// manager's own redirect rules.
    public static func redirect(to location: String, status: Int = 302) -> StubReply {
        .status(status, fields: ["Location": location])
    }

    /// A 401 asking for HTTP Basic credentials in `realm`, answered by the manager's credential
    /// rules.
    public static func basicChallenge(realm: String = "stub") -> StubReply {
        .status(401, fields: ["WWW-Authenticate": "Basic realm=\"\(realm)\""])
    }

    /// The attempt fails with `code` as a transport failure (from the server: the connection
    /// closed without a reply).
    public static func failure(_ code: URLError.Code) -> StubReply {
        var reply = StubReply.status(0)
        reply.failure = URLError(code)
        return reply
    }

    /// Raw bytes, pauses and closes, written by the server as given (a malformed response, an
    /// unsolicited one, a close inside the head); a stub fails the attempt with
    /// `URLError.badServerResponse`.
    public static func raw(_ steps: [Step]) -> StubReply {
        var reply = StubReply.status(0)
        reply.raw = steps
        return reply
    }

    /// This reply after `seconds`.
    public func delayed(by seconds: TimeInterval) -> StubReply {
        var reply = self
        reply.delay = seconds
        return reply
    }

    /// This reply with its body delivered `size` bytes at a time, `interval` seconds apart.
    public func chunked(_ size: Int, every interval: TimeInterval = 0) -> StubReply {
        var reply = self
        reply.chunks = (max(1, size), interval)
        return reply
    }

    /// This reply with the connection cut after `count` bytes of its body.
    public func cut(afterBodyBytes count: Int) -> StubReply {
        var reply = self
        reply.cutAfterBodyBytes = max(0, count)
        return reply
    }

    /// This reply with `fields` as trailers after its body (sent chunked).
    public func withTrailers(_ fields: [String: String]) -> StubReply {
        var reply = self
        reply.trailers = Self.sorted(fields)
        return reply
    }

    /// `fields` in the order of their names, so that a reply's bytes do not change from run to run.
    private static func sorted(_ fields: [String: String]) -> [RecordedRequest.Field] {
        fields.sorted { $0.key < $1.key }.map { RecordedRequest.Field(name: $0.key, value: $0.value) }
    }

    /// The reply as the transport plays it, to a request with `method`.
    func stubbed(forMethod method: String) -> StubbedReply {
        if let failure { return StubbedReply(outcome: .transportFailure(failure), delay: delay) }
        if raw != nil { return StubbedReply(outcome: .transportFailure(URLError(.badServerResponse)), delay: delay) }
        let framing = ReplyFraming(self, method: method)
        return StubbedReply(
            outcome: .response(status: status, fields: framing.fields.map { (name: $0.name, value: $0.value) }, chunks: framing.chunks,
                               trailers: framing.trailers.map { (name: $0.name, value: $0.value) }),
            delay: delay, interval: chunks?.interval ?? 0, cut: framing.cut ? URLError(.networkConnectionLost) : nil)
    }
}
