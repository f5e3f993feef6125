import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

extension XCTestCase {
    /// An in-process `TestServer` on 127.0.0.1 answering with `handler` (by default `{}` as
    /// JSON to every request), stopped when the test ends (after the managers made later are
    /// invalidated: teardown blocks run last first).
    func makeServer(_ handler: @escaping TestServer.Handler = { _ in .emptyJSON }) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    /// An `HTTPSessionManager` whose base URL is `server`'s, on the transport under test,
    /// invalidated when the test ends.
    func makeHTTPSessionManager(for server: TestServer, configuration: URLSessionConfiguration? = nil) -> HTTPSessionManager {
        let manager = HTTPSessionManager(baseURL: server.baseURL, configuration: configuration, transport: .underTest)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }
}

extension TestServer {
    /// `pathAndQuery` (`/bytes?seed=3`) on this server.
    func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURL.absoluteString + pathAndQuery)!
    }

    /// The first request received whose method is `method`, if any.
    func request(method: String) -> RecordedRequest? {
        requests.first { $0.method == method }
    }
}

extension ServerReply {
    /// `{}` as an `application/json` body.
    static let emptyJSON = ServerReply.status(200, fields: ["Content-Type": "application/json"], body: Data("{}".utf8))

    /// `object` serialized as an `application/json` body.
    static func jsonObject(_ object: Any, status: Int = 200) -> ServerReply {
        .status(status, fields: ["Content-Type": "application/json"], body: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data())
    }

    /// `count` bytes 0, 1, ..., 255, 0, ... as an `application/octet-stream` body.
    static func bytes(_ count: Int) -> ServerReply {
        .status(200, fields: ["Content-Type": "application/octet-stream"], body: Data((0..<count).map { UInt8(truncatingIfNeeded: $0) }))
    }

    /// `bytes(count)`'s body sent chunked, 64 KiB a chunk, without a declared length.
    static func chunkedBytes(_ count: Int) -> ServerReply {
        let body = bytes(count).body
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        let chunks = stride(from: 0, to: count, by: 65536).map { start in
            let chunk = body[start..<min(start + 65536, count)]
            return Step.send(Data("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + Data("\r\n".utf8))
        }
        return .raw([.send(Data(head.utf8))] + chunks + [.send(Data("0\r\n\r\n".utf8))])
    }

    /// For `/redirect/<n>`, a 302 to `/redirect/<n - 1>`; `{}` as JSON at `/redirect/0` and
    /// anywhere else (httpbin's `/redirect/<n>`).
    static func redirectChain(_ request: RecordedRequest) -> ServerReply {
        let parts = request.path.split(separator: "/")
        guard parts.first == "redirect", let left = parts.last.flatMap({ Int($0) }), left > 0 else { return .emptyJSON }
        return .redirect(to: "/redirect/\(left - 1)")
    }

    /// `{"authenticated": true, "user": user}` when `request` carries HTTP Basic credentials
    /// `user:password`; otherwise a 401 asking for them (`challenges`) or a 404 without a
    /// challenge (as httpbin's basic-auth and hidden-basic-auth routes answer).
    static func basicAuth(_ request: RecordedRequest, user: String, password: String, challenges: Bool = true) -> ServerReply {
        let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        guard request.value(forHeader: "Authorization") == expected else {
            return challenges ? .status(401, fields: ["WWW-Authenticate": "Basic realm=\"Fake Realm\""]) : .status(404)
        }
        return .jsonObject(["authenticated": true, "user": user])
    }
}
