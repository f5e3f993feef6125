import AFLocking
import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A retried attempt carries the jar's cookies as they are when it starts, not those of the
/// task's creation (RFC 6265 5.4: each request carries the cookies for its URL), against the
/// in-process `TestServer`. Interceptors put a manager on libcurl on either transport.
final class RetryCookieTests: XCTestCase {
    /// A server whose `/login` sets `sid=1` and whose `/flaky` answers its first request 503,
    /// setting `cookie`, and 200 after.
    private func server(firstFailureSets cookie: String) throws -> TestServer {
        let flakyRequests = Locked(0)
        let server = try TestServer { request in
            switch request.path {
            case "/login": return .status(200, fields: ["Set-Cookie": "sid=1; Path=/"])
            case "/flaky" where flakyRequests.withLock { $0 += 1; return $0 } == 1:
                return .status(503, fields: ["Set-Cookie": cookie, "Retry-After": "0"])
            default: return .text("ok")
            }
        }
        addTeardownBlock { server.stop() }
        return server
    }

    /// The `Cookie` headers of `/flaky`'s requests, in order, after logging in and a retried GET.
    private func flakyCookieHeaders(firstFailureSets cookie: String, requestCookie: String? = nil) throws -> [String?] {
        let server = try server(firstFailureSets: cookie)
        let manager = makeManager(interceptor: RetryPolicy.immediate)
        for path in ["login", "flaky"] {
            var request = URLRequest(url: server.baseURL.appendingPathComponent(path))
            if path == "flaky", let requestCookie { request.setValue(requestCookie, forHTTPHeaderField: "Cookie") }
            let result = try complete { handler in manager.resume(try manager.dataTask(with: request, completionHandler: handler)) }
            XCTAssertEqual(result.status, 200)
        }
        return server.requests.filter { $0.path == "/flaky" }.map { $0.value(forHeader: "Cookie") }
    }

    func testARetryCarriesACookieTheFailedAttemptsResponseSet() throws {
        XCTAssertEqual(try flakyCookieHeaders(firstFailureSets: "sid=2; Path=/"), ["sid=1", "sid=2"])
    }

    func testARetryDoesNotCarryACookieTheFailedAttemptsResponseDeleted() throws {
        XCTAssertEqual(try flakyCookieHeaders(firstFailureSets: "sid=; Path=/; Max-Age=0"), ["sid=1", nil])
    }

    func testARetryCarriesTheCookieHeaderSetOnTheRequest() throws {
        XCTAssertEqual(try flakyCookieHeaders(firstFailureSets: "sid=2; Path=/", requestCookie: "mine=1"), ["mine=1", "mine=1"])
    }
}
