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
