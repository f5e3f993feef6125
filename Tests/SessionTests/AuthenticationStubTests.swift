import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Basic challenges on the libcurl transfer answered by a stub (no socket): answered once with
/// the task's or the manager's credential, for the request's own origin only; anything else
/// fails with `SessionError.authenticationRequired`. The server tests are `AuthenticationTests`.
final class AuthenticationStubTests: XCTestCase {
    private let base = URL(string: "https://api.example.com")!
    private let userPass = "Basic dXNlcjpwYXNz"
    private let credential = URLCredential(user: "user", password: "pass", persistence: .none)

    /// A stub whose `/private` answers `user:pass` with "inside" and anything else with `challenge`.
    private func vault(_ challenge: StubReply = .basicChallenge(realm: "vault")) -> StubTransport {
        let stubs = StubTransport(baseURL: base)
        stubs.on(nil, "/private", headers: ["Authorization": userPass]).reply(.text("inside"))
        stubs.on(nil, "/private").reply(challenge)
        return stubs
    }

    private var privateURL: URL { base.appendingPathComponent("private") }

    private func assertAuthenticationRequired(_ completion: Completion, file: StaticString = #filePath, line: UInt = #line) {
        guard case .authenticationRequired(let response)? = completion.error as? SessionError else {
            return XCTFail("expected authenticationRequired, got \(String(describing: completion.error))", file: file, line: line)
        }
        XCTAssertEqual(response?.statusCode, 401, file: file, line: line)
        XCTAssertEqual((completion.error as NSError?)?.code, URLError.userAuthenticationRequired.rawValue, file: file, line: line)
    }

    func testABasicChallengeIsAnsweredOnceWithTheManagersCredential() throws {
        let stubs = vault()
        let manager = makeManager(stubs: stubs)
        manager.credential = credential
        let completion = try run(URLRequest(url: privateURL), on: manager)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.text, "inside")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, [nil, userPass])
    }

    func testAChallengeIsAnsweredWithTheCredentialTheManagerHadWhenTheTaskWasMade() throws {
        let stubs = vault()
        let manager = makeManager(stubs: stubs)
        manager.credential = credential
        let completion = try run(URLRequest(url: privateURL), on: manager) { _ in
            manager.credential = URLCredential(user: "user", password: "changed", persistence: .none)
        }
        XCTAssertEqual(completion.text, "inside")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, [nil, userPass])
    }

    func testAnAnsweredChallengeKeepsTheRequestsMethodAndBody() throws {
        let stubs = vault()
        let manager = makeManager(stubs: stubs)
        manager.credential = credential
        _ = try run(URLRequest("PUT", privateURL, body: "payload"), on: manager)
        XCTAssertEqual(stubs.requests.map(\.method), ["PUT", "PUT"])
        XCTAssertEqual(stubs.requests.map(\.text), ["payload", "payload"])
    }

    func testATasksOwnCredentialWinsOverTheManagers() throws {
        let stubs = vault()
        let manager = makeManager(stubs: stubs)
        manager.credential = URLCredential(user: "user", password: "wrong", persistence: .none)
        let completion = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: privateURL), credential: credential, completionHandler: handler))
        }
        XCTAssertEqual(completion.text, "inside")
    }

    func testAChallengeWithoutACredentialFailsWithAuthenticationRequiredAndThe401() throws {
        let stubs = vault()
        let completion = try run(URLRequest(url: privateURL), on: makeManager(stubs: stubs))
        assertAuthenticationRequired(completion)
        XCTAssertEqual(completion.status, 401)
        XCTAssertEqual(stubs.requests.count, 1)
    }

    func testAWrongCredentialIsTriedOnceThenFailsWithAuthenticationRequired() throws {
        let stubs = vault()
        let manager = makeManager(stubs: stubs)
        manager.credential = URLCredential(user: "user", password: "wrong", persistence: .none)
        let completion = try run(URLRequest(url: privateURL), on: manager)
        assertAuthenticationRequired(completion)
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, [nil, "Basic dXNlcjp3cm9uZw=="])
    }

    func testADigestChallengeIsNotAnswered() throws {
        let stubs = vault(.status(401, fields: ["WWW-Authenticate": #"Digest realm="vault", nonce="n1", qop="auth""#]))
        let manager = makeManager(stubs: stubs)
        manager.credential = credential
        let completion = try run(URLRequest(url: privateURL), on: manager)
        assertAuthenticationRequired(completion)
        XCTAssertEqual(stubs.requests.count, 1)
    }

    func testAnUnknownSchemeReachesTheSerializerAsA401() throws {
        let stubs = vault(.status(401, fields: ["WWW-Authenticate": "Bearer"]))
        let manager = makeManager(stubs: stubs)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.credential = credential
        let completion = try run(URLRequest(url: privateURL), on: manager)
        XCTAssertEqual((completion.error as? ResponseSerializationError)?.reason, .unacceptableStatusCode(401))
        XCTAssertEqual(stubs.requests.count, 1)
    }

    func testAChallengeToAOneShotBodyStreamIsNotAnswered() throws {
        let stubs = vault()
        let manager = makeManager(stubs: stubs)
        manager.credential = credential
        var request = URLRequest("PUT", privateURL)
        request.httpBodyStream = InputStream(data: Data("payload".utf8))
        let completion = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        assertAuthenticationRequired(completion)
        XCTAssertEqual(stubs.requests.map(\.text), ["payload"])
    }

    func testTheOverrideSeesTheChallengesRealmAndAnswers() throws {
        let stubs = vault()
        let manager = makeManager(stubs: stubs)
        let realms = Locked<[String?]>([])
        manager.overrides.taskDidReceiveAuthenticationChallenge = { [credential] _, _, challenge in
            realms.withLock { $0.append(challenge.protectionSpace.realm) }
            return (.useCredential, credential)
        }
        let completion = try run(URLRequest(url: privateURL), on: manager)
        XCTAssertEqual(completion.text, "inside")
        XCTAssertEqual(realms.withLock { $0 }, ["vault"])
    }

    func testTheManagersCredentialAnswersNoOtherOriginARedirectLedTo() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/login").reply(.redirect(to: "https://other.example.com/private"))
        stubs.on("GET", "https://other.example.com/private").reply(.basicChallenge())
        let manager = makeManager(stubs: stubs)
        manager.credential = credential
        let completion = try run(URLRequest(url: base.appendingPathComponent("login")), on: manager)
        assertAuthenticationRequired(completion)
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, [nil, nil])
    }

    func testAChallengeIsAnsweredBeforeTheInterceptorsSeeIt() throws {
        let stubs = vault()
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        manager.credential = credential
        let completion = try run(URLRequest(url: privateURL), on: manager)
        XCTAssertEqual(completion.text, "inside")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, [nil, userPass])
    }

    func testAnUnansweredChallengeHeldForTheInterceptorsStillFailsWithAuthenticationRequired() throws {
        let stubs = vault()
        let completion = try run(URLRequest(url: privateURL), on: makeManager(stubs: stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 })))
        assertAuthenticationRequired(completion)
        XCTAssertEqual(stubs.requests.count, 1)
    }
}
