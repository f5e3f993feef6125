import AFLocking
import AFNetworkingTesting
import AFSecurity
import AFSerialization
import AFSession
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The cache sees each request as it goes out, against servers on 127.0.0.1 and a Unix socket:
/// no user, tenant, server, route or query is answered with another's response, and an unsafe
/// request invalidates where it was answered. On the transport under test (`scripts/test.sh`
/// runs these on libcurl and on URLSession's own protocol), and on libcurl where only it
/// carries what is tested (interceptors, sockets, client certificates, security policies).
final class ResponseCachingKeyTests: XCTestCase {
    private func manager(cache: ResponseCache, transport: HTTPTransport = .underTest) -> URLSessionManager {
        let manager = URLSessionManager(transport: transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        manager.responseCache = cache
        return manager
    }

    /// Adds one user's bearer token to every attempt.
    private struct Token: RequestInterceptor {
        let value: String
        func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
            var request = request
            request.setValue("Bearer \(value)", forHTTPHeaderField: "Authorization")
            return request
        }
    }

    /// A server answering with the value of the request's field `name` (`-` without one), cacheable as `control` says.
    private func echoing(_ name: String, control: String = "public, max-age=600", vary: String? = nil, tls: TestServerTLS? = nil,
                         socket: String? = nil) throws -> TestServer {
        let server = try TestServer(unixSocketPath: socket, tls: tls) { request in
            var fields = ["Cache-Control": control]
            fields["Vary"] = vary
            return .status(200, fields: fields, body: Data((request.value(forHeader: name) ?? "-").utf8))
        }
        addTeardownBlock { server.stop() }
        return server
    }

    private func text(_ manager: URLSessionManager, _ request: URLRequest, credential: URLCredential? = nil) async throws -> String {
        String(decoding: try await manager.data(for: request, credential: credential).value, as: UTF8.self)
    }

    func testVarySeesTheAuthorizationAnInterceptorAdded() async throws {
        let server = try echoing("Authorization", vary: "Authorization")
        let cache = ResponseCache()
        let alice = manager(cache: cache, transport: .libcurl)
        alice.interceptor = Token(value: "alice")
        let bob = manager(cache: cache, transport: .libcurl)
        bob.interceptor = Token(value: "bob")
        let request = URLRequest(url: server.url("/me"))
        let aliceText = try await text(alice, request)
        let bobText = try await text(bob, request)
        XCTAssertEqual(aliceText, "Bearer alice")
        XCTAssertEqual(bobText, "Bearer bob")
        XCTAssertEqual(server.requests.count, 2)
    }

    func testVarySeesTheAuthorizationOfABasicAnswer() async throws {
        let server = try TestServer { request in
            guard let authorization = request.value(forHeader: "Authorization") else {
                return .status(401, fields: ["WWW-Authenticate": "Basic realm=\"api\""])
            }
            return .status(200, fields: ["Cache-Control": "public, max-age=600", "Vary": "Authorization"], body: Data(authorization.utf8))
        }
        addTeardownBlock { server.stop() }
        let cache = ResponseCache()
        let (alice, bob) = (manager(cache: cache), manager(cache: cache))
        let request = URLRequest(url: server.url("/me"))
        let aliceText = try await text(alice, request, credential: URLCredential(user: "alice", password: "a", persistence: .none))
        let bobText = try await text(bob, request, credential: URLCredential(user: "bob", password: "b", persistence: .none))
        XCTAssertEqual(aliceText, BasicAuthorization.headerValue(user: "alice", password: "a"))
        XCTAssertEqual(bobText, BasicAuthorization.headerValue(user: "bob", password: "b"))
    }

    /// Two managers of the default configuration, which share its `URLCache`'s stand-in, over
    /// TLS to a server answering as `control` says: alice's presents a client certificate.
    private func aliceWithCertificateAndBob(control: String) throws -> (server: TestServer, alice: URLSessionManager, bob: URLSessionManager) {
        let tls = try TestServerTLS.selfSigned()
        let server = try TestServer(tls: tls) { _ in .status(200, fields: ["Cache-Control": control], body: Data("answer".utf8)) }
        addTeardownBlock { server.stop() }
        let alice = URLSessionManager(configuration: .default, transport: .libcurl)
        let bob = URLSessionManager(configuration: .default, transport: .libcurl)
        for manager in [alice, bob] {
            addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
            try manager.setSecurityPolicy(tls.securityPolicy)
            manager.responseSerializer = HTTPResponseSerializer()
        }
        alice.clientIdentity = try TestClientIdentity().identity
        XCTAssertTrue(alice.responseCache === bob.responseCache)
        return (server, alice, bob)
    }

    func testAManagersClientCertificateMakesItsResponsesOneUsers() async throws {
        let (server, alice, bob) = try aliceWithCertificateAndBob(control: "max-age=600")
        let request = URLRequest(url: server.url("/me/\(UUID().uuidString)"))
        _ = try await alice.data(for: request)
        _ = try await bob.data(for: request)
        _ = try await alice.data(for: request)
        XCTAssertEqual(server.requests.count, 3, "a shared cache stores no private answer to a certificate")
    }

    func testAPublicAnswerToAClientCertificateAnswersThatCertificateOnly() async throws {
        let (server, alice, bob) = try aliceWithCertificateAndBob(control: "public, max-age=600")
        let request = URLRequest(url: server.url("/me/\(UUID().uuidString)"))
        _ = try await alice.data(for: request)
        _ = try await bob.data(for: request)
        XCTAssertEqual(server.requests.count, 2, "bob's request went to the server")
        _ = try await alice.data(for: request)
        XCTAssertEqual(server.requests.count, 2, "alice's second request is a hit of her own")
    }

    func testEachHostFieldHasItsOwnResponses() async throws {
        let server = try echoing("Host")
        let manager = manager(cache: ResponseCache())
        var request = URLRequest(url: server.url("/name"))
        request.setValue("tenant-a.example", forHTTPHeaderField: "Host")
        let first = try await text(manager, request)
        request.setValue("tenant-b.example", forHTTPHeaderField: "Host")
        let second = try await text(manager, request)
        request.setValue("tenant-a.example", forHTTPHeaderField: "Host")
        let third = try await text(manager, request)
        XCTAssertEqual([first, second, third], ["tenant-a.example", "tenant-b.example", "tenant-a.example"])
        XCTAssertEqual(server.requests.count, 2)
    }

    func testAResponseThroughAUnixSocketNeverAnswersTheSameURLOverTCP() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("afn-cache-\(UUID().uuidString.prefix(8)).sock").path
        let daemon = try TestServer(unixSocketPath: path) { _ in .status(200, fields: ["Cache-Control": "max-age=600"], body: Data("daemon".utf8)) }
        addTeardownBlock { daemon.stop() }
        let tcp = try TestServer { _ in .status(200, fields: ["Cache-Control": "max-age=600"], body: Data("tcp".utf8)) }
        addTeardownBlock { tcp.stop() }
        let cache = ResponseCache()
        let throughSocket = manager(cache: cache, transport: .libcurl)
        throughSocket.unixSocketPath = path
        let overTCP = manager(cache: cache, transport: .libcurl)
        let request = URLRequest(url: tcp.url("/name"))
        let fromDaemon = try await text(throughSocket, request)
        let fromTCP = try await text(overTCP, request)
        let fromDaemonAgain = try await text(throughSocket, request)
        XCTAssertEqual([fromDaemon, fromTCP, fromDaemonAgain], ["daemon", "tcp", "daemon"])
        XCTAssertEqual(daemon.requests.count, 1)
        XCTAssertEqual(tcp.requests.count, 1)
    }

    // URLSession's own protocol on Linux fails a GET with a body (-1103) and refuses a 307 that
    // would resend one: these run on libcurl.

    func testAGetWithABodyIsNeitherAnsweredNorStored() async throws {
        let server = try TestServer { request in .status(200, fields: ["Cache-Control": "public, max-age=600"], body: request.body) }
        addTeardownBlock { server.stop() }
        let manager = manager(cache: ResponseCache(), transport: .libcurl)
        var search = URLRequest(url: server.url("/search"))
        search.httpBody = Data(#"{"user":"alice"}"#.utf8)
        let alice = try await text(manager, search)
        search.httpBody = Data(#"{"user":"bob"}"#.utf8)
        let bob = try await text(manager, search)
        XCTAssertEqual([alice, bob], [#"{"user":"alice"}"#, #"{"user":"bob"}"#])
        XCTAssertEqual(server.requests.count, 2)
    }

    func testAnUnsafeRequestRedirectedInvalidatesTheTargetThatAnswered() async throws {
        let version = Locked(1)
        let server = try TestServer { request in
            switch (request.method, request.path) {
            case ("POST", "/item/a"): return .status(307, fields: ["Location": "/item/b"])
            case ("POST", "/item/b"):
                version.withLock { $0 += 1 }
                return .status(200)
            default: return .status(200, fields: ["Cache-Control": "max-age=600"], body: Data("v\(version.withLock { $0 })".utf8))
            }
        }
        addTeardownBlock { server.stop() }
        let manager = manager(cache: ResponseCache(), transport: .libcurl)
        let item = URLRequest(url: server.url("/item/b"))
        let before = try await text(manager, item)
        var post = URLRequest(url: server.url("/item/a"))
        post.httpMethod = "POST"
        post.httpBody = Data("change".utf8)
        _ = try await manager.data(for: post)
        let after = try await text(manager, item)
        XCTAssertEqual([before, after], ["v1", "v2"])
    }

    func testAnotherOriginsLocationInvalidatesNothingHere() async throws {
        let victim = try TestServer { request in
            request.method == "POST" ? .status(307, fields: ["Location": "placeholder"]) : .status(200, fields: ["Cache-Control": "max-age=600"], body: Data("kept".utf8))
        }
        addTeardownBlock { victim.stop() }
        let attacker = try TestServer { _ in .status(201, fields: ["Location": victim.url("/item/victim").absoluteString]) }
        addTeardownBlock { attacker.stop() }
        victim.setHandler { request in
            request.method == "POST" ? .status(307, fields: ["Location": attacker.url("/create").absoluteString])
                : .status(200, fields: ["Cache-Control": "max-age=600"], body: Data("kept".utf8))
        }
        let manager = manager(cache: ResponseCache(), transport: .libcurl)
        _ = try await text(manager, URLRequest(url: victim.url("/item/victim")))
        var post = URLRequest(url: victim.url("/go"))
        post.httpMethod = "POST"
        post.httpBody = Data("x".utf8)
        let created = try await manager.data(for: post)
        XCTAssertEqual(created.response.statusCode, 201)
        _ = try await text(manager, URLRequest(url: victim.url("/item/victim")))
        XCTAssertEqual(victim.requests.filter { $0.path == "/item/victim" }.count, 1, "still a hit")
    }

    func testAHostThatIsNotAnAuthorityPoisonsNothing() async throws {
        let server = try echoing("Host")
        let manager = manager(cache: ResponseCache())
        var request = URLRequest(url: server.url("/name"))
        request.setValue("victim.invalid/admin", forHTTPHeaderField: "Host")
        _ = try? await manager.data(for: request)
        // What a stored `http://victim.invalid/admin/name` would answer without the network.
        do {
            _ = try await manager.data(for: URLRequest(url: URL(string: "http://victim.invalid/admin/name")!, cachePolicy: .returnCacheDataDontLoad))
            XCTFail("answered from the cache")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable, "\(error)")
        }
    }

    func testOneHostAtTwoServersGetsEachServersOwnResponse() async throws {
        let production = try TestServer { _ in .status(200, fields: ["Cache-Control": "max-age=600"], body: Data("production".utf8)) }
        addTeardownBlock { production.stop() }
        let staging = try TestServer { _ in .status(200, fields: ["Cache-Control": "max-age=600"], body: Data("staging".utf8)) }
        addTeardownBlock { staging.stop() }
        let manager = manager(cache: ResponseCache())
        var request = URLRequest(url: production.url("/a"))
        request.setValue("api.example", forHTTPHeaderField: "Host")
        let first = try await text(manager, request)
        request.url = staging.url("/a")
        let second = try await text(manager, request)
        XCTAssertEqual([first, second], ["production", "staging"])
        XCTAssertEqual(staging.requests.count, 1)
    }

    func testAUserInTheURLIsNeitherStoredNorAnswered() async throws {
        let server = try echoing("Authorization")
        let manager = manager(cache: ResponseCache(), transport: .libcurl)
        let url = { (user: String) in URL(string: "http://\(user):secret@127.0.0.1:\(server.baseURL.port!)/me")! }
        let alice = try await text(manager, URLRequest(url: url("alice")))
        let bob = try await text(manager, URLRequest(url: url("bob")))
        XCTAssertEqual([alice, bob], [BasicAuthorization.headerValue(user: "alice", password: "secret"), BasicAuthorization.headerValue(user: "bob", password: "secret")])
        XCTAssertEqual(server.requests.count, 2)
        XCTAssertEqual(manager.responseCache?.currentMemoryUsage, 0)
    }

    func testALocationAtTheHostTheServerWasAskedForIsInvalidated() async throws {
        let version = Locked(1)
        let server = try TestServer { request in
            if request.method == "POST" {
                version.withLock { $0 += 1 }
                return .status(201, fields: ["Location": "http://tenant-a.example/item/5"])
            }
            return .status(200, fields: ["Cache-Control": "max-age=600"], body: Data("v\(version.withLock { $0 })".utf8))
        }
        addTeardownBlock { server.stop() }
        let manager = manager(cache: ResponseCache())
        var item = URLRequest(url: server.url("/item/5"))
        item.setValue("tenant-a.example", forHTTPHeaderField: "Host")
        let before = try await text(manager, item)
        var post = URLRequest(url: server.url("/items"))
        post.httpMethod = "POST"
        post.httpBody = Data("new".utf8)
        post.setValue("tenant-a.example", forHTTPHeaderField: "Host")
        _ = try await manager.data(for: post)
        let after = try await text(manager, item)
        XCTAssertEqual([before, after], ["v1", "v2"])
    }

    /// Makes every request a POST with a body, as it goes out.
    private struct MakesAPost: RequestInterceptor {
        func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
            var request = request
            request.httpMethod = "POST"
            request.httpBody = Data("posted".utf8)
            return request
        }
    }

    func testAGetThatAnInterceptorSendsAsAPostIsNotStoredAsTheGets() async throws {
        let server = try TestServer { request in
            .status(200, fields: ["Cache-Control": "public, max-age=600"], body: Data(request.method.utf8))
        }
        addTeardownBlock { server.stop() }
        let cache = ResponseCache()
        let posting = manager(cache: cache, transport: .libcurl)
        posting.interceptor = MakesAPost()
        let plain = manager(cache: cache, transport: .libcurl)
        let request = URLRequest(url: server.url("/thing"))
        let first = try await text(posting, request)
        let second = try await text(plain, request)
        XCTAssertEqual([first, second], ["POST", "GET"])
    }

    func testAStoredResponseThatVariesIsNotAnInterceptedTasksAnswer() async throws {
        // The interceptor sets what `Vary` names only after the cache was asked: the anonymous
        // response must not answer bob, whose token the server never saw.
        let server = try echoing("Authorization", vary: "Authorization")
        let cache = ResponseCache()
        let anonymous = manager(cache: cache, transport: .libcurl)
        let bob = manager(cache: cache, transport: .libcurl)
        bob.interceptor = Token(value: "bob")
        let request = URLRequest(url: server.url("/me"))
        let first = try await text(anonymous, request)
        let second = try await text(bob, request)
        XCTAssertEqual([first, second], ["-", "Bearer bob"])
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "If-None-Match") }, [nil, nil], "not validated either")
    }

    func testAResponseFetchedThroughAnotherSecurityPolicyNeverAnswers() async throws {
        // A manager trusting the test server's own certificate fetches; one trusting the system's
        // anchors alone must be refused by the handshake, not answered from the shared cache.
        let tls = try TestServerTLS.selfSigned()
        let server = try TestServer(tls: tls) { _ in .status(200, fields: ["Cache-Control": "public, max-age=600"], body: Data("answer".utf8)) }
        addTeardownBlock { server.stop() }
        let cache = ResponseCache()
        let trusting = manager(cache: cache, transport: .libcurl)
        try trusting.setSecurityPolicy(tls.securityPolicy)
        let strict = manager(cache: cache, transport: .libcurl)
        let request = URLRequest(url: server.url("/a"))
        _ = try await trusting.data(for: request)
        do {
            _ = try await strict.data(for: request)
            XCTFail("answered from the cache without a trusted handshake")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .serverCertificateHasUnknownRoot, "\(error)")
        }
    }

    func testABackgroundValidationPresentsTheTasksOwnCertificate() throws {
        let client = try TestClientIdentity()
        let tls = try TestServerTLS.selfSigned().requiringClientCertificates(issuedBy: [client.certificate])
        let server = try TestServer(tls: tls) { _ in
            .status(200, fields: ["Cache-Control": "public, max-age=0, stale-while-revalidate=600", "ETag": "\"v1\""], body: Data("answer".utf8))
        }
        addTeardownBlock { server.stop() }
        let manager = manager(cache: ResponseCache(), transport: .libcurl)
        try manager.setSecurityPolicy(tls.securityPolicy)
        // Every completion's error, the background validation's among them.
        let completions = Locked<[String]>([])
        manager.overrides.taskDidComplete = { _, _, error in completions.withLock { $0.append(error.map { "\($0)" } ?? "ok") } }
        let request = URLRequest(url: server.url("/a"))
        for _ in 0..<2 {
            let completion = try run(request, on: manager) { manager.setClientIdentity(client.identity, for: $0) }
            XCTAssertNil(completion.error)
        }
        let deadline = Date().addingTimeInterval(10)
        while completions.withLock({ $0.count }) < 3, Date() < deadline { usleep(10_000) }
        XCTAssertEqual(completions.withLock { $0 }, ["ok", "ok", "ok"], "the validation completed")
        XCTAssertEqual(server.requests.count, 2, "the validation reached the server")
        XCTAssertEqual(server.requests.last?.clientCertificate, client.certificate)
        XCTAssertEqual(server.requests.last?.value(forHeader: "If-None-Match"), "\"v1\"")
    }
}
