import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What the session configuration asks of every request, on either transport: URLSession's
/// own protocol applies it itself, the libcurl transport must apply it the same way. Against
/// the in-process `TestServer`, whose recorded requests show what was sent.
final class SessionConfigurationTests: XCTestCase {
    /// Any JSON object (the server answers `{}`).
    private struct Empty: Decodable {}

    private var cookieName = ""
    private var server: TestServer!

    override func setUpWithError() throws {
        cookieName = "afn-\(UUID().uuidString.prefix(8))"
        // As httpbin: /cookies/set?name=value sets each cookie (path /) and redirects to /cookies.
        server = try makeServer { request in
            guard request.path == "/cookies/set" else { return .emptyJSON }
            let cookies = request.queryItems.map { "\($0.name)=\($0.value ?? ""); Path=/" }
            return .status(302, fields: ["Location": "/cookies", "Set-Cookie": cookies.joined(separator: ", ")])
        }
    }

    private func manager(jar: CookieJar = CookieJar(), _ configure: (URLSessionConfiguration) -> Void) throws -> HTTPSessionManager {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configure(configuration)
        let manager = HTTPSessionManager(baseURL: server.baseURL, configuration: configuration, transport: .underTest, cookieJar: jar)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// The `Cookie` field of each request received for `/cookies`, in order (`nil`: none sent).
    private var cookiesSentToTheEcho: [String?] {
        server.requests.filter { $0.path == "/cookies" }.map { $0.value(forHeader: "Cookie") }
    }

    func testAdditionalHeadersOfTheConfigurationAreSent() async throws {
        let manager = try manager { $0.httpAdditionalHeaders = ["X-Client-Build": "42"] }
        _ = try await manager.get("headers", as: Empty.self)
        XCTAssertEqual(server.requests.first?.value(forHeader: "X-Client-Build"), "42")
    }

    func testARequestHeaderReplacesTheAdditionalHeaderOfTheSameNameInAnyCase() async throws {
        let manager = try manager { $0.httpAdditionalHeaders = ["x-client-build": "42"] }
        _ = try await manager.get("headers", headers: ["X-Client-Build": "43"], as: Empty.self)
        let sent = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(sent.fields.filter { $0.name.lowercased() == "x-client-build" }.map(\.value), ["43"])
    }

    func testACookieSetByAResponseIsSentAlongItsRedirectAndWithTheNextRequest() async throws {
        let manager = try manager { _ in }
        _ = try await manager.get("cookies/set", parameters: [cookieName: "v1"], as: Empty.self)
        XCTAssertEqual(cookiesSentToTheEcho, ["\(cookieName)=v1"], "along the redirect")
        _ = try await manager.get("cookies", as: Empty.self)
        XCTAssertEqual(cookiesSentToTheEcho, ["\(cookieName)=v1", "\(cookieName)=v1"], "with the next request")
    }

    func testStoredCookiesAreNotSentWhenTheConfigurationSetsNone() async throws {
        let jar = CookieJar()
        let storing = try manager(jar: jar) { _ in }
        _ = try await storing.get("cookies/set", parameters: [cookieName: "v1"], as: Empty.self)
        XCTAssertEqual(cookiesSentToTheEcho, ["\(cookieName)=v1"], "the cookie was not stored in the first place")
        let manager = try manager(jar: jar) { $0.httpShouldSetCookies = false }
        _ = try await manager.get("cookies", as: Empty.self)
        XCTAssertEqual(cookiesSentToTheEcho, ["\(cookieName)=v1", nil])
    }

    func testNoCookieIsStoredWhenTheConfigurationAcceptsNone() async throws {
        let manager = try manager { $0.httpCookieAcceptPolicy = .never }
        _ = try await manager.get("cookies/set", parameters: [cookieName: "v1"], as: Empty.self)
        XCTAssertEqual(cookiesSentToTheEcho, [nil])
        XCTAssertFalse(manager.cookieJar.cookies.contains { $0.name == cookieName })
    }

    func testEachManagerHasItsOwnCookiesAndNoneGoToTheSharedStore() async throws {
        let first = try manager { _ in }
        _ = try await first.get("cookies/set", parameters: [cookieName: "v1"], as: Empty.self)
        XCTAssertTrue(first.cookieJar.cookies.contains { $0.name == cookieName })
        let second = try manager { _ in }
        _ = try await second.get("cookies", as: Empty.self)
        XCTAssertNil(cookiesSentToTheEcho.last ?? nil, "a new manager saw another manager's cookie")
        XCTAssertFalse((HTTPCookieStorage.shared.cookies ?? []).contains { $0.name == cookieName }, "the shared store (saved to disk) got it")
    }

    func testAPOSTBodyWithoutAContentTypeIsSentAsAForm() async throws {
        let manager = try manager { _ in }
        var request = URLRequest(url: server.url("/post"))
        request.httpMethod = "POST"
        request.httpBody = Data("a=1&b=2".utf8)
        _ = try await manager.data(for: request)
        let sent = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(sent.value(forHeader: "Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertEqual(sent.formFields, [URLQueryItem(name: "a", value: "1"), URLQueryItem(name: "b", value: "2")])
    }

    func testTheConfigurationsRequestTimeoutAppliesToARequestWithoutItsOwn() async throws {
        server.setHandler { _ in ServerReply.emptyJSON.delayed(by: 4) }
        let manager = try manager { $0.timeoutIntervalForRequest = 1 }
        let start = Date()
        do {
            _ = try await manager.data(for: URLRequest(url: server.url("/delay")))
            XCTFail("the request outlived the configuration's 1 s timeout")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .timedOut, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2.5)
    }

    func testARequestsOwnTimeoutWinsOverTheConfigurations() async throws {
        server.setHandler { _ in ServerReply.emptyJSON.delayed(by: 2) }
        let manager = try manager { $0.timeoutIntervalForRequest = 1 }
        var request = URLRequest(url: server.url("/delay"))
        request.timeoutInterval = 5
        let response = try await manager.data(for: request)
        XCTAssertEqual(response.response.statusCode, 200)
    }
}
