import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Each hop of a redirect carries exactly the jar's cookies for its own URL (RFC 6265 5.4,
/// curl -L with a jar), end to end against the in-process `TestServer` on the transport under
/// test; a `Cookie` header set on the request goes to every hop of its origin, as curl's -H.
final class CookieRedirectTests: XCTestCase {
    /// A server answering `replies` by path (200 for any other), recording every request.
    private func server(_ replies: [String: ServerReply]) throws -> TestServer {
        let server = try TestServer { request in replies[request.path] ?? .text("ok") }
        addTeardownBlock { server.stop() }
        return server
    }

    /// Runs a GET of `path` on `server` through `manager`, failing the test on an error.
    private func get(_ path: String, from server: TestServer, with manager: URLSessionManager, cookie: String? = nil) throws {
        var request = URLRequest(url: server.baseURL.appendingPathComponent(path))
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        let result = try complete { handler in manager.resume(try manager.dataTask(with: request, completionHandler: handler)) }
        XCTAssertNil(result.error)
    }

    /// The `Cookie` header the server received for `path`, the last time it was requested.
    private func cookieHeader(receivedAt path: String, by server: TestServer) throws -> String? {
        let request = try XCTUnwrap(server.requests.last { $0.path == path }, "\(path) was not requested")
        return request.value(forHeader: "Cookie")
    }

    private func makeManagerForText() -> URLSessionManager {
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer()
        return manager
    }

    func testACookieTheRedirectResponseDeletedDoesNotReachTheTarget() throws {
        let server = try server([
            "/login": .status(200, fields: ["Set-Cookie": "sid=s3cret; Path=/"]),
            "/logout": .status(302, fields: ["Set-Cookie": "sid=; Path=/; Max-Age=0", "Location": "/home"]),
        ])
        let manager = makeManagerForText()
        try get("login", from: server, with: manager)
        try get("logout", from: server, with: manager)
        XCTAssertEqual(try cookieHeader(receivedAt: "/logout", by: server), "sid=s3cret")
        XCTAssertNil(try cookieHeader(receivedAt: "/home", by: server), "the deleted cookie reached the redirect's target")
    }

    func testACookieOfAnotherPathDoesNotReachTheTarget() throws {
        let server = try server([
            "/a/login": .status(200, fields: ["Set-Cookie": "area=a; Path=/a"]),
            "/a/go": .status(302, fields: ["Location": "/b"]),
        ])
        let manager = makeManagerForText()
        try get("a/login", from: server, with: manager)
        try get("a/go", from: server, with: manager)
        XCTAssertEqual(try cookieHeader(receivedAt: "/a/go", by: server), "area=a")
        XCTAssertNil(try cookieHeader(receivedAt: "/b", by: server), "a cookie of Path=/a reached /b")
    }

    func testEachHopCarriesTheJarsCookiesForItsOwnPath() throws {
        let server = try server([
            "/login": .status(200, fields: ["Set-Cookie": "site=1; Path=/"]),
            "/a/login": .status(200, fields: ["Set-Cookie": "area=a; Path=/a"]),
            "/a/go": .status(302, fields: ["Location": "/b"]),
        ])
        let manager = makeManagerForText()
        try get("login", from: server, with: manager)
        try get("a/login", from: server, with: manager)
        try get("a/go", from: server, with: manager)
        XCTAssertEqual(try cookieHeader(receivedAt: "/a/go", by: server), "area=a; site=1")
        XCTAssertEqual(try cookieHeader(receivedAt: "/b", by: server), "site=1")
    }

    func testACookieHeaderSetOnTheRequestGoesToEverySameOriginHop() throws {
        let server = try server([
            "/login": .status(200, fields: ["Set-Cookie": "sid=1; Path=/"]),
            "/go": .status(302, fields: ["Location": "/target"]),
        ])
        let manager = makeManagerForText()
        try get("login", from: server, with: manager)
        try get("go", from: server, with: manager, cookie: "mine=1")
        XCTAssertEqual(try cookieHeader(receivedAt: "/go", by: server), "mine=1")
        XCTAssertEqual(try cookieHeader(receivedAt: "/target", by: server), "mine=1")
    }

    func testACookieHeaderSetOnTheRequestStaysBehindOnceARedirectLeftItsOrigin() throws {
        let other = try server(["/hop": .status(302, fields: ["Location": "/target"])])
        let first = try server(["/go": .status(302, fields: ["Location": other.baseURL.appendingPathComponent("hop").absoluteString])])
        try get("go", from: first, with: makeManagerForText(), cookie: "mine=s3cret")
        XCTAssertEqual(try cookieHeader(receivedAt: "/go", by: first), "mine=s3cret")
        XCTAssertNil(try cookieHeader(receivedAt: "/hop", by: other))
        XCTAssertNil(try cookieHeader(receivedAt: "/target", by: other), "the caller's Cookie came back on the next hop of the other origin")
    }
}
