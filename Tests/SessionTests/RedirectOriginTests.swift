import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Secrets stay with their origin across redirects, end to end on the transport under test:
/// httpbin and the fault server listen on different ports of 127.0.0.1, so a redirect from one
/// to the other changes the origin.
final class RedirectOriginTests: XCTestCase {
    private let secrets = ["Authorization": "Bearer s3cret", "Cookie": "session=s3cret", "Proxy-Authorization": "Basic cHc=",
                           "Origin": "https://app.example", "X-Api-Key": "s3cret-key", "X-Goog-Api-Key": "s3cret-goog"]

    /// The headers httpbin's /headers received after `request` was redirected there.
    private func headersAfterRedirect(_ request: URLRequest, manager: URLSessionManager) throws -> [String: String] {
        let result = try complete { handler in manager.resume(try manager.dataTask(with: request, completionHandler: handler)) }
        XCTAssertNil(result.error)
        return try XCTUnwrap(result.json?["headers"] as? [String: String], "\(String(describing: result.json))")
    }

    /// A request to the fault server that answers 302 to httpbin's /headers.
    private func crossOriginRedirect() throws -> URLRequest {
        let target = try HTTPBin.url("/headers").absoluteString
        var request = URLRequest(url: try FaultServer.raw("HTTP/1.1 302 Found\r\nLocation: \(target)\r\nContent-Length: 0\r\n\r\n"))
        for (name, value) in secrets { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return request
    }

    func testARedirectToAnotherOriginCarriesNoCredentialOrSecret() throws {
        let headers = try headersAfterRedirect(try crossOriginRedirect(), manager: makeManager())
        // The cookie store may add its own cookies for the new host (cookies are per host, not
        // per origin); the caller's Cookie header must not go.
        for name in secrets.keys where name != "Cookie" { XCTAssertNil(headers[name], "\(name) crossed the origin") }
        XCTAssertFalse(headers["Cookie"]?.contains("s3cret") ?? false, "the caller's Cookie crossed the origin")
        XCTAssertEqual(headers["Accept"], "application/json")
    }

    func testConfigurationHeadersThatAreSecretStayWithTheOriginToo() throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["Authorization": "Bearer from-configuration", "X-Client": "afn"]
        let manager = URLSessionManager(configuration: configuration, transport: .underTest)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let target = try HTTPBin.url("/headers").absoluteString
        let request = URLRequest(url: try FaultServer.raw("HTTP/1.1 302 Found\r\nLocation: \(target)\r\nContent-Length: 0\r\n\r\n"))
        let headers = try headersAfterRedirect(request, manager: manager)
        XCTAssertNil(headers["Authorization"])
        XCTAssertEqual(headers["X-Client"], "afn")
    }

    func testASameOriginRedirectKeepsEveryHeader() throws {
        var request = URLRequest(url: try HTTPBin.url("/redirect-to?url=/headers"))
        for (name, value) in secrets { request.setValue(value, forHTTPHeaderField: name) }
        let headers = try headersAfterRedirect(request, manager: makeManager())
        for (name, value) in secrets where name != "Cookie" { XCTAssertEqual(headers[name], value, name) }
    }

    func testATrustedManagerKeepsCredentialsAcrossOrigins() throws {
        let manager = makeManager()
        manager.sendsCredentialsAcrossOrigins = true
        let headers = try headersAfterRedirect(try crossOriginRedirect(), manager: manager)
        XCTAssertEqual(headers["Authorization"], "Bearer s3cret")
    }

    func testATaskCanTrustRedirectsOnItsOwn() throws {
        let manager = makeManager()
        let result = try complete { handler in
            let task = try manager.dataTask(with: try crossOriginRedirect(), completionHandler: handler)
            manager.setSendsCredentialsAcrossOrigins(true, for: task)
            manager.resume(task)
        }
        XCTAssertEqual((result.json?["headers"] as? [String: String])?["Authorization"], "Bearer s3cret")
    }

    func testARedirectIntoAUnixSocketIsRefused() throws {
        let socket = try UnixSocketHTTPBin.url("/get").absoluteString
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(
                with: URLRequest(url: try FaultServer.raw("HTTP/1.1 302 Found\r\nLocation: \(socket)\r\nContent-Length: 0\r\n\r\n")),
                completionHandler: handler))
        }
        guard case .redirectRefused(let reason, let response)? = result.error as? SessionError else {
            return XCTFail("expected redirectRefused, got \(String(describing: result.error))")
        }
        XCTAssertTrue(reason.contains("Unix domain socket"), reason)
        XCTAssertEqual(response.statusCode, 302)
    }

    func testTheManagersCredentialAnswersOnlyItsOwnOrigin() throws {
        let manager = makeManager()
        manager.credential = URLCredential(user: "user", password: "pass", persistence: .none)
        let challenge = try HTTPBin.url("/basic-auth/user/pass").absoluteString
        let redirected = try complete { handler in
            manager.resume(try manager.dataTask(
                with: URLRequest(url: try FaultServer.raw("HTTP/1.1 302 Found\r\nLocation: \(challenge)\r\nContent-Length: 0\r\n\r\n")),
                completionHandler: handler))
        }
        guard case .authenticationRequired? = redirected.error as? SessionError else {
            return XCTFail("the credential answered another origin: \(String(describing: redirected.error))")
        }
        let direct = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try HTTPBin.url("/basic-auth/user/pass")), completionHandler: handler))
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
            manager.resume(try manager.dataTask(with: URLRequest(url: try HTTPBin.url("/redirect/20")), completionHandler: handler))
        }
        XCTAssertEqual((result.error as? URLError)?.code, .httpTooManyRedirects)
        XCTAssertEqual(statuses.withLock { $0 }, [], "a redirect was handed on as the response")
    }
}
