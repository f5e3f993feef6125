import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A request whose `httpShouldHandleCookies` is `false` (AFNetworking's
/// `HTTPShouldHandleCookies` on the serializer) neither sends the jar's cookies nor stores the
/// cookies of its responses, as on Apple platforms; on the transport under test.
final class CookieHandlingPerRequestTests: XCTestCase {
    private func server() throws -> TestServer {
        let server = try TestServer { request in
            switch request.path {
            case "/login": .status(200, fields: ["Set-Cookie": "sid=s3cret; Path=/"])
            case "/hop": .status(302, fields: ["Location": "/home"])
            default: .text("ok")
            }
        }
        addTeardownBlock { server.stop() }
        return server
    }

    private func get(_ path: String, from server: TestServer, with manager: URLSessionManager, handlingCookies: Bool = true) throws {
        var request = URLRequest(url: server.baseURL.appendingPathComponent(path))
        request.httpShouldHandleCookies = handlingCookies
        let result = try complete { handler in manager.resume(try manager.dataTask(with: request, completionHandler: handler)) }
        XCTAssertNil(result.error)
    }

    private func makeManagerForText() -> URLSessionManager {
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer()
        return manager
    }

    func testARequestNotHandlingCookiesSendsNoneOfTheJarsOnAnyHop() throws {
        let server = try server()
        let manager = makeManagerForText()
        try get("login", from: server, with: manager)
        try get("hop", from: server, with: manager, handlingCookies: false)
        XCTAssertEqual(server.requests.filter { $0.path != "/login" }.map { $0.value(forHeader: "Cookie") }, [nil, nil])
    }

    func testARequestNotHandlingCookiesStoresNoneOfItsResponses() throws {
        let server = try server()
        let manager = makeManagerForText()
        try get("login", from: server, with: manager, handlingCookies: false)
        try get("home", from: server, with: manager)
        XCTAssertNil(server.requests.last?.value(forHeader: "Cookie"))
        XCTAssertEqual(manager.cookieJar.cookies(for: server.baseURL).count, 0)
    }
}
