import AFNetworking
import AFNetworkingTesting
import UsersClient
import XCTest

/// The example client tested both ways: against stubs (fast, no socket, the manager's own rules
/// running) and against a loopback server (for what only a socket shows: the timeout).
final class UsersClientTests: XCTestCase {
    private let base = URL(string: "https://users.example.com")!

    func testAUserIsFetchedAndDecoded() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/users/1").reply(try .json(User(id: 1, name: "Ada")))
        let client = UsersClient(baseURL: base, transport: stubs.transport)
        let user = try await client.user(id: 1)
        XCTAssertEqual(user, User(id: 1, name: "Ada"))
    }

    func testBusyRepliesAreRetried() async throws {
        let stubs = StubTransport()
        let route = stubs.on("GET", "/v1/users/2").replies([.status(503), .status(503), try .json(User(id: 2, name: "Grace"))])
        let user = try await UsersClient(baseURL: base, transport: stubs.transport).user(id: 2)
        XCTAssertEqual(user.name, "Grace")
        XCTAssertEqual(route.callCount, 3)
    }

    func testANewUserIsSentAsJSON() async throws {
        let stubs = StubTransport()
        stubs.on("POST", "/v1/users", body: try .json(["name": "Linus"])).reply(try .json(User(id: 3, name: "Linus"), status: 201))
        let user = try await UsersClient(baseURL: base, transport: stubs.transport).createUser(name: "Linus")
        XCTAssertEqual(user.id, 3)
        XCTAssertEqual(stubs.requests.first?.value(forHeader: "Content-Type"), "application/json")
    }

    func testTheAvatarIsUploadedAsAMultipartPart() async throws {
        let stubs = StubTransport()
        let image = Data([0x89, 0x50, 0x4E, 0x47])
        stubs.on("POST", "/v1/users/4/avatar", body: .multipartPart(named: "avatar", filename: "avatar.png", content: image))
            .reply(try .json(User(id: 4, name: "Barbara")))
        let user = try await UsersClient(baseURL: base, transport: stubs.transport).uploadAvatar(image, forUser: 4)
        XCTAssertEqual(user.name, "Barbara")
    }

    func testARefusedTokenIsRefreshedAndTheRequestSentAgain() async throws {
        let stubs = StubTransport()
        let tokens = stubs.on("POST", "/v1/tokens", body: try .json(["apiKey": "key-1"]))
            .replies([try .json(["token": "t1"]), try .json(["token": "t2"])])
        // The service has already revoked t1: only t2 is accepted.
        stubs.on("GET", "/v1/users/8").reply { request in
            request.value(forHeader: "Authorization") == "Bearer t2" ? (try? .json(User(id: 8, name: "Edsger"))) ?? .status(500) : .status(401)
        }
        let user = try await UsersClient(baseURL: base, transport: stubs.transport, apiKey: "key-1").user(id: 8)
        XCTAssertEqual(user.name, "Edsger")
        XCTAssertEqual(tokens.callCount, 2)
        let sent = stubs.requests.filter { $0.path == "/v1/users/8" }.map { $0.value(forHeader: "Authorization") }
        XCTAssertEqual(sent, ["Bearer t1", "Bearer t2"])
    }

    func testTheExportIsDownloadedToAFileWithProgress() async throws {
        let stubs = StubTransport()
        let lines = Data((1...2000).map { #"{"id":\#($0),"name":"user \#($0)"}"# + "\n" }.joined().utf8)
        stubs.on("GET", "/v1/users/export").reply(StubReply.status(200, fields: ["Content-Type": "application/x-ndjson"], body: lines).chunked(8192, every: 0.01))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("users-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: destination) }
        let fractions = FractionLog()
        let file = try await UsersClient(baseURL: base, transport: stubs.transport).exportUsers(to: destination) { fractions.append($0.fractionCompleted) }
        XCTAssertEqual(try Data(contentsOf: file), lines)
        let seen = fractions.values
        XCTAssertGreaterThan(seen.count, 2, "progress came in steps")
        XCTAssertEqual(seen, seen.sorted(), "progress never ran backwards")
        XCTAssertEqual(seen.last, 1)
    }

    func testAnUnknownRouteFailsLoudly() async throws {
        let stubs = StubTransport()
        do {
            _ = try await UsersClient(baseURL: base, transport: stubs.transport).user(id: 5)
            XCTFail("an unstubbed request succeeded")
        } catch let error as StubError {
            XCTAssertEqual(error, .unmatched(request: "GET https://users.example.com/v1/users/5", nearest: []))
        }
    }

    func testAStalledServiceTimesOutAgainstARealSocket() async throws {
        let server = try TestServer { _ in ServerReply.text("late").delayed(by: 10) }
        defer { server.stop() }
        let client = UsersClient(baseURL: server.baseURL, timeout: 0.3)
        let start = Date()
        do {
            _ = try await client.user(id: 6)
            XCTFail("a stalled service answered")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .timedOut)
        }
        // The policy retried the timeouts (two retries), each 0.3 s, well before the reply.
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(server.requests.count, 3)
    }
}

/// Progress fractions as reported, from any thread.
private final class FractionLog: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var fractions: [Double] = []

    func append(_ fraction: Double) {
        lock.withLock { fractions.append(fraction) }
    }

    var values: [Double] { lock.withLock { fractions } }
}
