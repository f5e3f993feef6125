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

    override func tearDown() {
        let storage = HTTPCookieStorage.shared
        for cookie in storage.cookies ?? [] where cookie.name == cookieName { storage.deleteCookie(cookie) }
    }

    private func manager(_ configure: (URLSessionConfiguration) -> Void) throws -> HTTPSessionManager {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configure(configuration)
        return try makeHTTPBinManager(configuration: configuration)
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
        let manager = try manager { $0.httpCookieStorage = .shared }
        let redirected = try await manager.get("cookies/set", parameters: [cookieName: "v1"], as: Cookies.self)
        XCTAssertEqual(redirected.cookies[cookieName], "v1")
        let next = try await manager.get("cookies", as: Cookies.self)
        XCTAssertEqual(next.cookies[cookieName], "v1")
    }

    func testStoredCookiesAreNotSentWhenTheConfigurationSetsNone() async throws {
        let storing = try manager { $0.httpCookieStorage = .shared }
        let stored = try await storing.get("cookies/set", parameters: [cookieName: "v1"], as: Cookies.self)
        XCTAssertEqual(stored.cookies[cookieName], "v1", "the cookie was not stored in the first place")
        let manager = try manager {
            $0.httpCookieStorage = .shared
            $0.httpShouldSetCookies = false
        }
        let echo = try await manager.get("cookies", as: Cookies.self)
        XCTAssertNil(echo.cookies[cookieName])
    }

    func testNoCookieIsStoredWhenTheConfigurationAcceptsNone() async throws {
        let manager = try manager {
            $0.httpCookieStorage = .shared
            $0.httpCookieAcceptPolicy = .never
        }
        let redirected = try await manager.get("cookies/set", parameters: [cookieName: "v1"], as: Cookies.self)
        XCTAssertNil(redirected.cookies[cookieName])
        XCTAssertFalse((HTTPCookieStorage.shared.cookies ?? []).contains { $0.name == cookieName })
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
