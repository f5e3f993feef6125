import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// What the session configuration asks of every request, on either transport: URLSession's
/// own protocol applies it itself, the libcurl transport must apply it the same way.
final class SessionConfigurationTests: XCTestCase {
    private struct Headers: Decodable { let headers: [String: String] }
    private struct Cookies: Decodable { let cookies: [String: String] }

    private var cookieName = ""

    override func setUp() {
        cookieName = "afn-\(UUID().uuidString.prefix(8))"
    }

    private func manager(jar: CookieJar = CookieJar(), _ configure: (URLSessionConfiguration) -> Void) throws -> HTTPSessionManager {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configure(configuration)
        let manager = HTTPSessionManager(baseURL: try HTTPBin.url("/"), configuration: configuration, transport: .underTest, cookieJar: jar)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testAdditionalHeadersOfTheConfigurationAreSent() async throws {
        let manager = try manager { $0.httpAdditionalHeaders = ["X-Client-Build": "42"] }
        let echo = try await manager.get("headers", as: Headers.self)
        XCTAssertEqual(echo.headers["X-Client-Build"], "42")
    }

    func testARequestHeaderReplacesTheAdditionalHeaderOfTheSameNameInAnyCase() async throws {
        let manager = try manager { $0.httpAdditionalHeaders = ["x-client-build": "42"] }
        let echo = try await manager.get("headers", headers: ["X-Client-Build": "43"], as: Headers.self)
        XCTAssertEqual(echo.headers["X-Client-Build"], "43")
    }

    func testACookieSetByAResponseIsSentAlongItsRedirectAndWithTheNextRequest() async throws {
        let manager = try manager { _ in }
        let redirected = try await manager.get("cookies/set", parameters: [cookieName: "v1"], as: Cookies.self)
        XCTAssertEqual(redirected.cookies[cookieName], "v1")
        let next = try await manager.get("cookies", as: Cookies.self)
        XCTAssertEqual(next.cookies[cookieName], "v1")
    }

    func testStoredCookiesAreNotSentWhenTheConfigurationSetsNone() async throws {
        let jar = CookieJar()
        let storing = try manager(jar: jar) { _ in }
        let stored = try await storing.get("cookies/set", parameters: [cookieName: "v1"], as: Cookies.self)
        XCTAssertEqual(stored.cookies[cookieName], "v1", "the cookie was not stored in the first place")
        let manager = try manager(jar: jar) { $0.httpShouldSetCookies = false }
        let echo = try await manager.get("cookies", as: Cookies.self)
        XCTAssertNil(echo.cookies[cookieName])
    }

    func testNoCookieIsStoredWhenTheConfigurationAcceptsNone() async throws {
        let manager = try manager { $0.httpCookieAcceptPolicy = .never }
        let redirected = try await manager.get("cookies/set", parameters: [cookieName: "v1"], as: Cookies.self)
        XCTAssertNil(redirected.cookies[cookieName])
        XCTAssertFalse(manager.cookieJar.cookies.contains { $0.name == cookieName })
    }

    func testEachManagerHasItsOwnCookiesAndNoneGoToTheSharedStore() async throws {
        let first = try manager { _ in }
        _ = try await first.get("cookies/set", parameters: [cookieName: "v1"], as: Cookies.self)
        XCTAssertTrue(first.cookieJar.cookies.contains { $0.name == cookieName })
        let second = try manager { _ in }
        let echo = try await second.get("cookies", as: Cookies.self)
        XCTAssertNil(echo.cookies[cookieName], "a new manager saw another manager's cookie")
        XCTAssertFalse((HTTPCookieStorage.shared.cookies ?? []).contains { $0.name == cookieName }, "the shared store (saved to disk) got it")
    }

    func testAPOSTBodyWithoutAContentTypeIsSentAsAForm() async throws {
        let manager = try manager { _ in }
        var request = URLRequest(url: try HTTPBin.url("/post"))
        request.httpMethod = "POST"
        request.httpBody = Data("a=1&b=2".utf8)
        let response = try await manager.data(for: request)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: response.value) as? [String: Any])
        XCTAssertEqual((json["headers"] as? [String: String])?["Content-Type"], "application/x-www-form-urlencoded")
        XCTAssertEqual(json["form"] as? [String: String], ["a": "1", "b": "2"])
    }

    func testTheConfigurationsRequestTimeoutAppliesToARequestWithoutItsOwn() async throws {
        let manager = try manager { $0.timeoutIntervalForRequest = 1 }
        let start = Date()
        do {
            _ = try await manager.data(for: URLRequest(url: try HTTPBin.url("/delay/4")))
            XCTFail("the request outlived the configuration's 1 s timeout")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .timedOut, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5)
    }

    func testARequestsOwnTimeoutWinsOverTheConfigurations() async throws {
        let manager = try manager { $0.timeoutIntervalForRequest = 1 }
        var request = URLRequest(url: try HTTPBin.url("/delay/2"))
        request.timeoutInterval = 5
        let response = try await manager.data(for: request)
        XCTAssertEqual(response.response.statusCode, 200)
    }
}
