import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Credential challenges, which URLSession on Linux answers by hanging (no credential) or
/// crashing (`.useCredential` without one, Digest): Basic and Bearer ones from an in-process
/// server, Digest from httpbin's implementation.
final class AuthenticationTests: XCTestCase {
    /// A URL on an in-process server answering HTTP Basic credentials `user:pass` with
    /// `{"authenticated": true, "user": "user"}` and anything else with a 401 asking for them.
    private func basicAuthURL() throws -> URL {
        try makeServer { .basicAuth($0, user: "user", password: "pass") }.url("/basic-auth/user/pass")
    }

    func testBasicChallengeWithoutCredentialFailsPromptlyWithThe401() throws {
        let manager = makeManager()
        let start = Date()
        let result = try complete(timeout: 5) { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try basicAuthURL()), completionHandler: handler))
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        guard case .authenticationRequired(let response)? = result.error as? SessionError else {
            return XCTFail("expected authenticationRequired, got \(String(describing: result.error))")
        }
        XCTAssertEqual(response?.statusCode, 401)
        XCTAssertEqual(result.status, 401)
        XCTAssertEqual((result.error! as NSError).code, URLError.userAuthenticationRequired.rawValue)
    }

    func testWrongCredentialFailsWithAuthenticationRequired() throws {
        let manager = makeManager()
        manager.credential = URLCredential(user: "user", password: "wrong", persistence: .none)
        let result = try complete(timeout: 5) { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try basicAuthURL()), completionHandler: handler))
        }
        guard case .authenticationRequired? = result.error as? SessionError else {
            return XCTFail("expected authenticationRequired, got \(String(describing: result.error))")
        }
    }

    func testPerRequestCredentialWinsOverTheManagers() throws {
        let manager = makeManager()
        manager.credential = URLCredential(user: "user", password: "wrong", persistence: .none)
        let result = try complete { handler in
            manager.resume(try manager.dataTask(
                with: URLRequest(url: try basicAuthURL()),
                credential: URLCredential(user: "user", password: "pass", persistence: .none), completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(result.json?["authenticated"] as? Bool, true)
    }

    func testUseCredentialWithoutACredentialIsRefusedInsteadOfCrashing() throws {
        let manager = makeManager()
        var overrides = SessionDelegateOverrides()
        overrides.taskDidReceiveAuthenticationChallenge = { _, _, _ in (.useCredential, nil) }
        manager.overrides = overrides
        let result = try complete(timeout: 5) { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try basicAuthURL()), completionHandler: handler))
        }
        guard case .authenticationRequired? = result.error as? SessionError else {
            return XCTFail("expected authenticationRequired, got \(String(describing: result.error))")
        }
    }

    func testDefaultHandlingFromAnOverrideDoesNotHang() throws {
        let manager = makeManager()
        var overrides = SessionDelegateOverrides()
        overrides.taskDidReceiveAuthenticationChallenge = { _, _, _ in (.performDefaultHandling, nil) }
        manager.overrides = overrides
        let result = try complete(timeout: 5) { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try basicAuthURL()), completionHandler: handler))
        }
        guard case .authenticationRequired? = result.error as? SessionError else {
            return XCTFail("expected authenticationRequired, got \(String(describing: result.error))")
        }
    }

    func testDigestChallengeWithACredentialCompletesWithoutCrashing() throws {
        let manager = makeManager()
        manager.credential = URLCredential(user: "user", password: "pass", persistence: .none)
        let result = try complete(timeout: 5) { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try HTTPBin.url("/digest-auth/auth/user/pass")), completionHandler: handler))
        }
        XCTAssertNotNil(result.error)
        XCTAssertEqual(result.status, 401)
    }

    func testUnknownSchemeGivesThe401AsAStatusError() throws {
        let server = try makeServer { _ in .status(401, fields: ["WWW-Authenticate": "Bearer"]) }
        let manager = makeManager()
        let result = try complete(timeout: 5) { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/bearer")), completionHandler: handler))
        }
        XCTAssertEqual((result.error as? ResponseSerializationError)?.reason, .unacceptableStatusCode(401))
    }
}
