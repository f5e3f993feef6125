import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Secrets stay with their origin across redirects, end to end on the transport under test:
/// in-process servers listen on different ports of 127.0.0.1, so a redirect from one to another
/// changes the origin.
final class RedirectOriginTests: XCTestCase {
    private let secrets = ["Authorization": "Bearer s3cret", "Cookie": "session=s3cret", "Proxy-Authorization": "Basic cHc=",
                           "Origin": "https://app.example", "X-Api-Key": "s3cret-key", "X-Goog-Api-Key": "s3cret-goog"]

    /// The request `target` received once `request` was redirected there.
    private func requestAfterRedirect(_ request: URLRequest, to target: TestServer, manager: URLSessionManager) throws -> RecordedRequest {
        let result = try complete { handler in manager.resume(try manager.dataTask(with: request, completionHandler: handler)) }
        XCTAssertNil(result.error)
        XCTAssertEqual(target.requests.count, 1)
        return try XCTUnwrap(target.requests.last)
    }

    /// A request to a server of its own that answers 302 to `location`.
    private func redirect(to location: URL) throws -> URLRequest {
        URLRequest(url: try makeServer { _ in .redirect(to: location.absoluteString) }.baseURL)
    }

    /// A request carrying `secrets` to a server that answers 302 to `target`'s `/headers`.
    private func crossOriginRedirect(to target: TestServer) throws -> URLRequest {
        var request = try redirect(to: target.url("/headers"))
        for (name, value) in secrets { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return request
    }

    func testARedirectToAnotherOriginCarriesNoCredentialOrSecret() throws {
        let target = try makeServer()
        let received = try requestAfterRedirect(try crossOriginRedirect(to: target), to: target, manager: makeManager())
        // The cookie store may add its own cookies for the new host (cookies are per host, not
        // per origin); the caller's Cookie header must not go.
        for name in secrets.keys where name != "Cookie" { XCTAssertNil(received.value(forHeader: name), "\(name) crossed the origin") }
        XCTAssertFalse(received.value(forHeader: "Cookie")?.contains("s3cret") ?? false, "the caller's Cookie crossed the origin")
        XCTAssertEqual(received.value(forHeader: "Accept"), "application/json")
    }

    func testConfigurationHeadersThatAreSecretStayWithTheOriginToo() throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["Authorization": "Bearer from-configuration", "X-Client": "afn"]
        let manager = URLSessionManager(configuration: configuration, transport: .underTest)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let target = try makeServer()
        let received = try requestAfterRedirect(try redirect(to: target.url("/headers")), to: target, manager: manager)
        XCTAssertNil(received.value(forHeader: "Authorization"))
        XCTAssertEqual(received.value(forHeader: "X-Client"), "afn")
    }

    func testASameOriginRedirectKeepsEveryHeader() throws {
        let server = try makeServer { $0.path == "/redirect" ? .redirect(to: "/headers") : .emptyJSON }
        var request = URLRequest(url: server.url("/redirect"))
        for (name, value) in secrets { request.setValue(value, forHTTPHeaderField: name) }
        let manager = makeManager()
        let result = try complete { handler in manager.resume(try manager.dataTask(with: request, completionHandler: handler)) }
        XCTAssertNil(result.error)
        let received = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(server.requests.map(\.path), ["/redirect", "/headers"])
        for (name, value) in secrets where name != "Cookie" { XCTAssertEqual(received.value(forHeader: name), value, name) }
    }

    func testATrustedManagerKeepsCredentialsAcrossOrigins() throws {
        let manager = makeManager()
        manager.sendsCredentialsAcrossOrigins = true
        let target = try makeServer()
        let received = try requestAfterRedirect(try crossOriginRedirect(to: target), to: target, manager: manager)
        XCTAssertEqual(received.value(forHeader: "Authorization"), "Bearer s3cret")
    }

    func testATaskCanTrustRedirectsOnItsOwn() throws {
        let manager = makeManager()
        let target = try makeServer()
        let request = try crossOriginRedirect(to: target)
        _ = try complete { handler in
            let task = try manager.dataTask(with: request, completionHandler: handler)
            manager.setSendsCredentialsAcrossOrigins(true, for: task)
            manager.resume(task)
        }
        XCTAssertEqual(target.requests.last?.value(forHeader: "Authorization"), "Bearer s3cret")
    }

    func testARedirectIntoAUnixSocketIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = try TestServer(unixSocketPath: directory.url.appendingPathComponent("s").path)
        defer { socket.stop() }
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: try redirect(to: socket.url("/get")), completionHandler: handler))
        }
        guard case .redirectRefused(let reason, let response)? = result.error as? SessionError else {
            return XCTFail("expected redirectRefused, got \(String(describing: result.error))")
        }
        XCTAssertTrue(reason.contains("Unix domain socket"), reason)
        XCTAssertEqual(response.statusCode, 302)
        XCTAssertEqual(socket.requests.count, 0)
    }

    func testTheManagersCredentialAnswersOnlyItsOwnOrigin() throws {
        let manager = makeManager()
        manager.credential = URLCredential(user: "user", password: "pass", persistence: .none)
        let challenge = try makeServer { .basicAuth($0, user: "user", password: "pass") }.url("/basic-auth/user/pass")
        let redirected = try complete { handler in
            manager.resume(try manager.dataTask(with: try redirect(to: challenge), completionHandler: handler))
        }
        guard case .authenticationRequired? = redirected.error as? SessionError else {
            return XCTFail("the credential answered another origin: \(String(describing: redirected.error))")
        }
        let direct = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: challenge), completionHandler: handler))
        }
        XCTAssertNil(direct.error)
    }

    func testTooManyRedirectsNeverHandTheLastRedirectOnAsTheResponse() throws {
        let manager = makeManager()
        let statuses = Locked<[Int]>([])
        var overrides = SessionDelegateOverrides()
        overrides.dataTaskDidReceiveResponse = { _, _, response in
            statuses.withLock { $0.append((response as? HTTPURLResponse)?.statusCode ?? 0) }
            return .allow
        }
        manager.overrides = overrides
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try makeServer(ServerReply.redirectChain).url("/redirect/20")), completionHandler: handler))
        }
        XCTAssertEqual((result.error as? URLError)?.code, .httpTooManyRedirects)
        XCTAssertEqual(statuses.withLock { $0 }, [], "a redirect was handed on as the response")
    }
}
