// snippet: testing-stubs
import AFNetworking
import AFNetworkingTesting
import XCTest

struct User: Codable, Equatable, Sendable {
    var id: Int
    var name: String
}

final class UserAPITests: XCTestCase {
    func testAUserIsFetchedAfterTwoBusyReplies() async throws {
        let stubs = StubTransport()
        let users = stubs.on("GET", "/v1/users/1")
            .replies([.status(503), .status(503), try .json(User(id: 1, name: "Ada"))])
        let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com"), transport: stubs.transport)
        manager.interceptor = RetryPolicy(backoffBase: 0.01)
        let user: User = try await manager.get("v1/users/1")
        XCTAssertEqual(user.name, "Ada")
        XCTAssertEqual(users.callCount, 3)
        XCTAssertEqual(stubs.requests.map(\.path), ["/v1/users/1", "/v1/users/1", "/v1/users/1"])
    }
}
// snippet: end

final class TestClockSnippetTests: XCTestCase {
    func testTheIdleTimeoutFiresAtItsDeadline() throws {
        let finished = expectation(description: "the task ends")
        // snippet: test-clock
        let clock = TestClock()
        let stubs = StubTransport(clock: clock)
        stubs.on("GET", "/v1/report").reply(StubReply.text("late").delayed(by: 60))
        // snippet.hide
        let manager = URLSessionManager(transport: stubs.transport)
        // snippet.show
        var request = URLRequest(url: URL(string: "https://api.example.com/v1/report")!)
        request.timeoutInterval = 30
        let task = try manager.dataTask(with: request) { _, _, error in /* URLError.timedOut, idle */ }
        // snippet.hide
        _ = task
        let observed = try manager.dataTask(with: request) { _, _, error in
            XCTAssertEqual((error as? URLError)?.code, .timedOut)
            finished.fulfill()
        }
        observed.resume()
        // snippet.show
        task.resume()
        clock.advance(by: 29.999)   // task.state == .running
        // snippet.hide
        XCTAssertEqual(task.state, .running)
        // snippet.show
        clock.advance(by: 0.001)    // the idle timeout ends the task
        // snippet: end
        wait(for: [finished], timeout: 5)
    }

    func testFixturesNeedNoServer() throws {
        // snippet: fixtures
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Users")
        let stubs = StubTransport()
        _ = try? stubs.replay(fixturesAt: fixtures) // nothing to replay before the first run
        stubs.record(unmatchedTo: fixtures)         // leave out in CI, so that a missing fixture fails
        // snippet: end
        XCTAssertTrue(stubs.requests.isEmpty)
    }

    func testTheSerializedQueryIsTheOneShown() throws {
        XCTAssertEqual(try serializedSearchURL(), "https://api.example.com/search?q=swift&tags%5B%5D=linux&tags%5B%5D=server")
    }
}
