import AFNetworkingTesting
import Foundation

extension TestServer {
    /// A server on 127.0.0.1 writing `steps` (bytes and pauses) as they are to every request,
    /// then closing the connection: any status line, header or framing a test needs.
    public convenience init(writing steps: [ServerReply.Step]) throws {
        try self.init { _ in .raw(steps + [.close]) }
    }

    /// A server on 127.0.0.1 writing `raw` to every request, then closing the connection.
    public convenience init(writing raw: Data) throws {
        try self.init(writing: [.send(raw)])
    }

    /// A server on 127.0.0.1 writing `raw` in UTF-8 to every request, then closing the connection.
    public convenience init(writing raw: String) throws {
        try self.init(writing: Data(raw.utf8))
    }
}

/// Broken HTTP/1.1 responses as raw bytes, for `TestServer(writing:)`: the fault rows that need
/// no reset (a reset, RST rather than a close, is the fault server's).
public enum BrokenResponses {
    /// A head declaring 1000 body bytes, and 500 of them.
    public static let shortBody = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "s", count: 500)
    /// A chunked body whose chunk size is not hexadecimal.
    public static let badChunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
    /// Bytes that are not an HTTP response (an SSH server's greeting).
    public static let notHTTP = "SSH-2.0-OpenSSH_9.2\r\nProtocol mismatch.\r\n"
    /// A 200 with a header line without a colon, and the body "ok".
    public static let headerLineWithoutColon = "HTTP/1.1 200 OK\r\nThis line has no colon\r\nContent-Length: 2\r\n\r\nok"
    /// A status line whose code is not a number.
    public static let invalidStatusLine = "HTTP/1.1 OK 200\r\nContent-Length: 2\r\n\r\nok"
    /// "100 Continue" and no final response.
    public static let onlyContinue = "HTTP/1.1 100 Continue\r\n\r\n"
}
