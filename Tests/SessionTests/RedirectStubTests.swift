import AFLocking
import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Redirects on the libcurl transfer answered by a stub (no socket): which method and body the
/// next request carries for each status (`FollowUpRules`), what a change of origin strips
/// (`RedirectPolicy`), and the manager's limit. The server tests of the same rules are
/// `RedirectTests`, `RedirectOriginTests` and `RedirectPolicyTests`.
final class RedirectStubTests: XCTestCase {
    private let base = URL(string: "https://api.example.com")!
    private let secrets = ["Authorization": "Bearer s3cret", "Cookie": "session=s3cret", "Proxy-Authorization": "Basic cHc=",
                           "Origin": "https://app.example", "X-Api-Key": "s3cret-key", "X-Session-Secret": "s3cret-fragment"]

    /// The request that followed `method` (with `body`) redirected by `status` to `/new`, and
    /// the task's completion.
    private func follow(_ method: String, status: Int, body: String? = "payload") throws -> (next: RecordedRequest?, completion: Completion) {
        let stubs = StubTransport(baseURL: base)
        stubs.on(method, "/old").reply(.redirect(to: "/new", status: status))
        stubs.on(nil, "/new").reply(.text("moved"))
        let completion = try run(URLRequest(method, base.appendingPathComponent("old"), body: body), on: makeManager(stubs: stubs))
        XCTAssertNil(completion.error)
        XCTAssertEqual(stubs.requests.count, 2)
        return (stubs.requests.dropFirst().first, completion)
    }

    // MARK: Method and body by status

    /// A POST with a body redirected with `status` is followed as a GET without its body or
    /// its `Content-Type`.
    private func assertAPostIsFollowedAsAGetWithoutItsBody(status: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let next = try follow("POST", status: status).next
        XCTAssertEqual(next?.method, "GET", file: file, line: line)
        XCTAssertEqual(next?.body, Data(), file: file, line: line)
        XCTAssertNil(next?.value(forHeader: "Content-Type"), file: file, line: line)
    }

    func testA301TurnsAPostIntoAGetWithoutItsBody() throws {
        try assertAPostIsFollowedAsAGetWithoutItsBody(status: 301)
    }

    func testA302TurnsAPostIntoAGetWithoutItsBody() throws {
        try assertAPostIsFollowedAsAGetWithoutItsBody(status: 302)
    }

    func testA303TurnsAPostIntoAGetWithoutItsBody() throws {
        try assertAPostIsFollowedAsAGetWithoutItsBody(status: 303)
    }

    func testA303TurnsAPutIntoAGetToo() throws {
        let next = try follow("PUT", status: 303).next
        XCTAssertEqual(next?.method, "GET")
        XCTAssertEqual(next?.body, Data())
    }

    func testA303KeepsAHeadRequestAHead() throws {
        let next = try follow("HEAD", status: 303, body: nil).next
        XCTAssertEqual(next?.method, "HEAD")
    }

    func testA301KeepsAPutAndItsBody() throws {
        let next = try follow("PUT", status: 301).next
        XCTAssertEqual(next?.method, "PUT")
        XCTAssertEqual(next?.text, "payload")
    }

    func testA302KeepsADeleteAndItsBody() throws {
        let next = try follow("DELETE", status: 302).next
        XCTAssertEqual(next?.method, "DELETE")
        XCTAssertEqual(next?.text, "payload")
    }

    func testA307KeepsAPostAndItsBody() throws {
        let next = try follow("POST", status: 307).next
        XCTAssertEqual(next?.method, "POST")
        XCTAssertEqual(next?.text, "payload")
        XCTAssertEqual(next?.value(forHeader: "Content-Type"), "text/plain")
    }

    func testA308KeepsAPutAndItsBody() throws {
        let (next, completion) = try follow("PUT", status: 308)
        XCTAssertEqual(next?.method, "PUT")
        XCTAssertEqual(next?.text, "payload")
        XCTAssertEqual(completion.text, "moved")
    }

    func testA307OfAFileUploadSendsTheFileAgain() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-stub-\(UUID().uuidString).txt")
        try Data("file body".utf8).write(to: file)
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        let stubs = StubTransport(baseURL: base)
        stubs.on("PUT", "/old").reply(.redirect(to: "/new", status: 307))
        stubs.on("PUT", "/new").reply(.text("stored"))
        let manager = makeManager(stubs: stubs)
        let completion = try complete { handler in
            manager.resume(try manager.uploadTask(with: URLRequest("PUT", base.appendingPathComponent("old")), fromFile: file, completionHandler: handler))
        }
        XCTAssertEqual(completion.text, "stored")
        XCTAssertEqual(stubs.requests.map(\.text), ["file body", "file body"])
    }

    func testA307OfAOneShotBodyStreamFailsWithRedirectWouldDropBody() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("POST", "/old").reply(.redirect(to: "/new", status: 307))
        stubs.on("POST", "/new").reply(.text("moved"))
        var request = URLRequest("POST", base.appendingPathComponent("old"))
        request.httpBodyStream = InputStream(data: Data("payload".utf8))
        let manager = makeManager(stubs: stubs)
        let completion = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        guard case .redirectWouldDropBody(let response)? = completion.error as? SessionError else {
            return XCTFail("expected redirectWouldDropBody, got \(String(describing: completion.error))")
        }
        XCTAssertEqual(response.statusCode, 307)
        XCTAssertEqual(stubs.requests.map(\.path), ["/old"], "the redirect was not followed")
    }

    // MARK: Targets

    func testARelativeLocationResolvesAgainstTheRequestsURL() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/v1/a/old").reply(.redirect(to: "../b/new?page=2"))
        stubs.on("GET", "/v1/b/new", query: ["page": "2"]).reply(.text("here"))
        let completion = try run(URLRequest(url: base.appendingPathComponent("v1/a/old")), on: makeManager(stubs: stubs))
        XCTAssertEqual(completion.text, "here")
        XCTAssertEqual(stubs.requests.last?.target, "/v1/b/new?page=2")
        XCTAssertEqual(completion.response?.url?.absoluteString, "https://api.example.com/v1/b/new?page=2")
    }

    func testARedirectStatusWithoutALocationIsTheResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/old").reply(.status(302, body: Data("no location".utf8)))
        let completion = try run(URLRequest(url: base.appendingPathComponent("old")), on: makeManager(stubs: stubs))
        XCTAssertEqual(completion.status, 302)
        XCTAssertEqual(completion.text, "no location")
        XCTAssertEqual(stubs.requests.count, 1)
    }

    func testA300WithALocationIsNotFollowed() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/choices").reply(.redirect(to: "/first", status: 300))
        let completion = try run(URLRequest(url: base.appendingPathComponent("choices")), on: makeManager(stubs: stubs))
        XCTAssertEqual(completion.status, 300)
        XCTAssertEqual(stubs.requests.count, 1)
    }

    func testTheRedirectsOwnBodyIsNotHandedOn() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/old").reply(.status(302, fields: ["Location": "/new"], body: Data("redirect page".utf8)))
        stubs.on("GET", "/new").reply(.text("moved"))
        let completion = try run(URLRequest(url: base.appendingPathComponent("old")), on: makeManager(stubs: stubs))
        XCTAssertEqual(completion.text, "moved")
    }

    func testAnOverrideReturningNilStopsAtTheRedirectResponse() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/old").reply(.redirect(to: "/new"))
        stubs.on("GET", "/new").reply(.text("moved"))
        let manager = makeManager(stubs: stubs)
        manager.overrides.taskWillPerformHTTPRedirection = { _, _, _, _ in nil }
        let completion = try run(URLRequest(url: base.appendingPathComponent("old")), on: manager)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 302)
        XCTAssertEqual(stubs.requests.map(\.path), ["/old"])
    }

    func testACookieSetByARedirectGoesWithTheNextRequest() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/login").reply(.status(302, fields: ["Location": "/home", "Set-Cookie": "session=abc; Path=/"]))
        stubs.on("GET", "/home").reply(.text("welcome"))
        let completion = try run(URLRequest(url: base.appendingPathComponent("login")), on: makeManager(stubs: stubs))
        XCTAssertEqual(completion.text, "welcome")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Cookie") }, [nil, "session=abc"])
    }

    // MARK: Origins

    /// The first request (to the base's `/old`, carrying the secrets) and the one that followed
    /// its 302 to `target`; `trusted` sets the task's own choice to keep credentials across
    /// origins.
    private func headersAfterRedirect(to target: String, trusted: Bool? = nil) throws -> (first: RecordedRequest?, next: RecordedRequest?) {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/old").reply(.redirect(to: target))
        stubs.on("GET", target).reply(.text("moved"))
        var request = URLRequest(url: base.appendingPathComponent("old"))
        for (name, value) in secrets { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let manager = makeManager(stubs: stubs)
        let completion = try run(request, on: manager) { task in
            if let trusted { manager.setSendsCredentialsAcrossOrigins(trusted, for: task) }
        }
        XCTAssertEqual(completion.text, "moved")
        return (stubs.requests.first, stubs.requests.dropFirst().first)
    }

    private func assertNoSecret(in request: RecordedRequest?, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotNil(request, "the redirect was not followed", file: file, line: line)
        for name in secrets.keys { XCTAssertNil(request?.value(forHeader: name), "\(name) crossed the origin", file: file, line: line) }
        XCTAssertEqual(request?.value(forHeader: "Accept"), "application/json", file: file, line: line)
    }

    func testARedirectToAnotherHostCarriesNoCredentialOrSecret() throws {
        assertNoSecret(in: try headersAfterRedirect(to: "https://other.example.com/new").next)
    }

    func testARedirectToAnotherSchemeCarriesNoCredentialOrSecret() throws {
        assertNoSecret(in: try headersAfterRedirect(to: "http://api.example.com/new").next)
    }

    func testARedirectToAnotherPortCarriesNoCredentialOrSecret() throws {
        assertNoSecret(in: try headersAfterRedirect(to: "https://api.example.com:8443/new").next)
    }

    func testARedirectToTheSameOriginKeepsEveryHeader() throws {
        let (first, next) = try headersAfterRedirect(to: "https://API.example.com:443/new")
        XCTAssertEqual(first?.value(forHeader: "Authorization"), "Bearer s3cret")
        for (name, value) in secrets { XCTAssertEqual(next?.value(forHeader: name), value, name) }
    }

    func testATaskThatTrustsRedirectsKeepsItsCredentialsAcrossOrigins() throws {
        let next = try headersAfterRedirect(to: "https://other.example.com/new", trusted: true).next
        XCTAssertEqual(next?.value(forHeader: "Authorization"), "Bearer s3cret")
        XCTAssertEqual(next?.value(forHeader: "X-Api-Key"), "s3cret-key")
    }

    func testATrustedManagerKeepsCredentialsAcrossOrigins() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/old").reply(.redirect(to: "https://other.example.com/new"))
        stubs.on("GET", "https://other.example.com/new").reply(.text("moved"))
        let manager = makeManager(stubs: stubs)
        manager.sendsCredentialsAcrossOrigins = true
        var request = URLRequest(url: base.appendingPathComponent("old"))
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        _ = try run(request, on: manager)
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer s3cret", "Bearer s3cret"])
    }

    func testATaskFollowsTheRedirectRulesItsManagerHadWhenItWasMade() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/old").reply(.redirect(to: "https://other.example.com/new"))
        stubs.on("GET", "https://other.example.com/new").reply(.text("moved"))
        let manager = makeManager(stubs: stubs)
        var request = URLRequest(url: base.appendingPathComponent("old"))
        request.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization")
        request.setValue("acme", forHTTPHeaderField: "X-Tenant")
        _ = try run(request, on: manager) { _ in
            manager.sendsCredentialsAcrossOrigins = true
            manager.redaction = Redaction(additionalHeaders: ["X-Tenant"])
        }
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer s3cret", nil])
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "X-Tenant") }, ["acme", "acme"])
    }

    func testAConfigurationsSecretHeaderStaysWithTheOrigin() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/old").reply(.redirect(to: "https://other.example.com/new"))
        stubs.on("GET", "https://other.example.com/new").reply(.text("moved"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["Authorization": "Bearer from-configuration", "X-Client": "afn"]
        let manager = URLSessionManager(configuration: configuration, transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        _ = try run(URLRequest(url: base.appendingPathComponent("old")), on: manager)
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer from-configuration", nil])
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "X-Client") }, ["afn", "afn"])
    }

    func testARedirectIntoAUnixSocketIsRefused() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/old").reply(.redirect(to: "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json"))
        let completion = try run(URLRequest(url: base.appendingPathComponent("old")), on: makeManager(stubs: stubs))
        guard case .redirectRefused(let reason, let response)? = completion.error as? SessionError else {
            return XCTFail("expected redirectRefused, got \(String(describing: completion.error))")
        }
        XCTAssertTrue(reason.contains("Unix domain socket"), reason)
        XCTAssertEqual(response.statusCode, 302)
        XCTAssertEqual(stubs.requests.count, 1)
    }

    // MARK: The limit

    /// A chain of `count` redirects (`/hop/1` to `/hop/2` ...) ending in a 200 at `/hop/<count + 1>`.
    private func chain(of count: Int) -> StubTransport {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/hop/*").reply { request in
            let number = Int(request.path.split(separator: "/").last ?? "") ?? 0
            return number > count ? .text("end of \(count)") : .redirect(to: "/hop/\(number + 1)")
        }
        return stubs
    }

    func testSixteenRedirectsAreFollowed() throws {
        let stubs = chain(of: URLSessionManager.maximumRedirects)
        let completion = try run(URLRequest(url: base.appendingPathComponent("hop/1")), on: makeManager(stubs: stubs))
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.text, "end of 16")
        XCTAssertEqual(stubs.requests.count, 17)
    }

    func testASeventeenthRedirectFailsWithTooManyRedirects() throws {
        let stubs = chain(of: URLSessionManager.maximumRedirects + 1)
        let completion = try run(URLRequest(url: base.appendingPathComponent("hop/1")), on: makeManager(stubs: stubs))
        XCTAssertEqual((completion.error as? URLError)?.code, .httpTooManyRedirects, "\(String(describing: completion.error))")
        XCTAssertEqual(stubs.requests.count, 17, "the seventeenth redirect was not followed")
    }

    func testTooManyRedirectsNeverHandTheLastRedirectOnAsTheResponse() throws {
        let stubs = chain(of: 40)
        let manager = makeManager(stubs: stubs)
        let statuses = Locked<[Int]>([])
        manager.overrides.dataTaskDidReceiveResponse = { _, _, response in
            statuses.withLock { $0.append((response as? HTTPURLResponse)?.statusCode ?? 0) }
            return .allow
        }
        let completion = try run(URLRequest(url: base.appendingPathComponent("hop/1")), on: manager)
        XCTAssertEqual((completion.error as? URLError)?.code, .httpTooManyRedirects)
        XCTAssertEqual(statuses.withLock { $0 }, [])
    }

    func testEachAttemptOfARetriedTaskHasTheWholeRedirectLimit() throws {
        // Six redirects to an end that answers 503 twice, then 200: each attempt follows six,
        // well within the limit, as a fresh task would (curl's --retry and Alamofire's retried
        // task count anew too).
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/hop/7").replies([.status(503), .status(503), .text("done")])
        stubs.on("GET", "/hop/*").reply { request in
            .redirect(to: "/hop/\((Int(request.path.split(separator: "/").last ?? "") ?? 0) + 1)")
        }
        let policy = RetryPolicy(budget: nil, jitter: { _ in 0 })
        let completion = try run(URLRequest(url: base.appendingPathComponent("hop/1")), on: makeManager(stubs: stubs, interceptor: policy))
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.text, "done")
        XCTAssertEqual(stubs.requests.count, 21)
    }

    func testTheMetricsOfARetriedTaskCountTheRedirectsOfEveryAttempt() throws {
        let stubs = StubTransport(baseURL: base)
        stubs.on("GET", "/hop/3").replies([.status(503), .text("done")])
        stubs.on("GET", "/hop/*").reply { request in
            .redirect(to: "/hop/\((Int(request.path.split(separator: "/").last ?? "") ?? 0) + 1)")
        }
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        let redirects = Locked<Int?>(nil)
        let collected = expectation(description: "metrics")
        manager.overrides.taskDidFinishCollectingMetrics = { _, _, metrics in
            redirects.withLock { $0 = metrics.redirectCount }
            collected.fulfill()
        }
        let completion = try run(URLRequest(url: base.appendingPathComponent("hop/1")), on: manager)
        XCTAssertEqual(completion.text, "done")
        wait(for: [collected], timeout: 5)
        XCTAssertEqual(redirects.withLock { $0 }, 4, "two redirects in each of the two attempts")
    }
}
