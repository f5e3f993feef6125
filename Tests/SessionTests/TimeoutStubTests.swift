import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The idle and total timeouts of the libcurl transfer answered by a stub (no socket), whose
/// delays and pauses run them out as a server's silence would: which one fires, across
/// redirects and retries. Values are short (0.2 s to 0.5 s): these test which timeout ends a
/// task, not how fast. The server tests are `TimeoutTests` (TransportTests).
final class TimeoutStubTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/v1/slow")!

    /// `url` with an idle timeout of `idle` seconds.
    private func request(idle: TimeInterval) -> URLRequest {
        var request = URLRequest(url: url)
        request.timeoutInterval = idle
        return request
    }

    /// The kind of the timeout `completion` failed with (`idle`, `total`), failing the test when
    /// it did not time out, or at another URL than `failingURL` (by default `url`).
    private func timeoutKind(_ completion: Completion, failingURL: URL? = nil, file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard let error = completion.error as? URLError, error.code == .timedOut else {
            XCTFail("expected a timeout, got \(String(describing: completion.error))", file: file, line: line)
            return nil
        }
        XCTAssertEqual(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL, failingURL ?? url, file: file, line: line)
        return error.userInfo[TimeoutKind.errorUserInfoKey] as? String
    }

    /// A manager with a session configuration `configure` sets, whose stub answers `url` only
    /// after 30 s.
    private func managerOfALateReply(_ configure: (URLSessionConfiguration) -> Void) -> URLSessionManager {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 30))
        let configuration = URLSessionConfiguration.ephemeral
        configure(configuration)
        let manager = URLSessionManager(configuration: configuration, transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testAPauseInTheBodyLongerThanTheIdleTimeoutFailsAsIdle() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.status(200, body: Data("abcd".utf8)).chunked(2, every: 30))
        var task: URLSessionTask?
        let completion = try run(request(idle: 0.2), on: makeManager(stubs: stubs)) { task = $0 }
        XCTAssertEqual(timeoutKind(completion), "idle")
        XCTAssertEqual(task?.countOfBytesReceived, 2, "the first chunk arrived before the pause")
    }

    func testATotalTimeoutEndsADelayedReplyWithinTheIdleTimeout() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 30))
        let manager = makeManager(stubs: stubs)
        let completion = try run(request(idle: 10), on: manager) { try manager.setTotalTimeout(0.3, for: $0) }
        XCTAssertEqual(timeoutKind(completion), "total")
    }

    func testTheConfigurationsResourceTimeoutIsTheTotalTimeout() throws {
        let manager = managerOfALateReply { $0.timeoutIntervalForResource = 0.3 }
        let completion = try run(request(idle: 10), on: manager)
        XCTAssertEqual(timeoutKind(completion), "total")
    }

    func testTheConfigurationsRequestTimeoutIsTheIdleTimeoutOfARequestWithoutItsOwn() throws {
        let manager = managerOfALateReply { $0.timeoutIntervalForRequest = 0.2 }
        let completion = try run(URLRequest(url: url), on: manager)
        XCTAssertEqual(timeoutKind(completion), "idle")
    }

    func testTheTotalTimeoutCountsEveryHopOfARedirect() throws {
        // Each hop alone is within the total; together they are not.
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.redirect(to: "/v1/slower").delayed(by: 0.3))
        stubs.on("GET", "https://api.example.com/v1/slower").reply(StubReply.text("late").delayed(by: 0.3))
        let manager = makeManager(stubs: stubs)
        let completion = try run(request(idle: 10), on: manager) { try manager.setTotalTimeout(0.5, for: $0) }
        XCTAssertEqual(timeoutKind(completion, failingURL: URL(string: "https://api.example.com/v1/slower")), "total")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testAHopsDelayDoesNotCountTowardTheNextHopsIdleTimeout() throws {
        // The idle timeout is per silence: two hops each silent for less than it succeed.
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.redirect(to: "/v1/slower").delayed(by: 0.3))
        stubs.on("GET", "https://api.example.com/v1/slower").reply(StubReply.text("ready").delayed(by: 0.3))
        let completion = try run(request(idle: 0.5), on: makeManager(stubs: stubs))
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.text, "ready")
    }

    func testAnAttemptThatTimedOutIsRetriedByThePolicy() throws {
        let stubs = StubTransport()
        let route = stubs.on("GET", url.absoluteString).replies([StubReply.text("late").delayed(by: 30), .text("ready")])
        let policy = RetryPolicy(budget: nil, jitter: { _ in 0 })
        let completion = try run(request(idle: 0.2), on: makeManager(stubs: stubs, interceptor: policy))
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.text, "ready")
        XCTAssertEqual(route.callCount, 2)
    }

    func testATotalTimeoutIsNotRetriedPastItself() throws {
        // Each attempt times out idle; the retry policy would try again, but the total is spent.
        let stubs = StubTransport()
        let route = stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 30))
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(maximumRetries: 10, budget: nil, jitter: { _ in 0 }))
        let completion = try run(request(idle: 0.15), on: manager) { try manager.setTotalTimeout(0.4, for: $0) }
        XCTAssertEqual(timeoutKind(completion), "total")
        // Idle after 0.15 s each, retried at once: two or three attempts fit in the 0.4 s.
        XCTAssertTrue((2...3).contains(route.callCount), "\(route.callCount) attempts")
    }

    func testARetryWaitPastTheTotalTimeoutFailsAsTotalWithoutTheRetry() throws {
        let stubs = StubTransport()
        let route = stubs.on("GET", url.absoluteString).replies([.status(503, fields: ["Retry-After": "1"]), .text("ready")])
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        let completion = try run(request(idle: 10), on: manager) { try manager.setTotalTimeout(0.4, for: $0) }
        XCTAssertEqual(timeoutKind(completion), "total")
        XCTAssertEqual(route.callCount, 1)
    }

    func testARetryWaitLongerThanTheTotalTimeoutIsCutShortByIt() throws {
        // A 0.4 s total timeout and a Retry-After of 30 s: the task must end when its total runs
        // out, not when the wait does.
        let stubs = StubTransport()
        let route = stubs.on("GET", url.absoluteString).replies([.status(503, fields: ["Retry-After": "30"]), .text("ready")])
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        let completion = try run(request(idle: 10), on: manager, timeout: 5) { try manager.setTotalTimeout(0.4, for: $0) }
        XCTAssertEqual(timeoutKind(completion), "total")
        XCTAssertEqual(route.callCount, 1)
    }

    func testATotalTimeoutDuringAHopEndsTheTaskWithoutAskingTheInterceptors() throws {
        // The policy would retry a timeout after 5 s: the total of 0.4 s ends the task instead,
        // with no retry announced and none sent.
        let stubs = StubTransport()
        let route = stubs.on("GET", url.absoluteString).replies([StubReply.text("late").delayed(by: 30), .text("ready")])
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(backoffBase: 5, budget: nil, jitter: { $0 }))
        let retries = NotificationLog(.taskWillRetry)
        var task: URLSessionTask?
        let completion = try run(request(idle: 10), on: manager, timeout: 3) {
            task = $0
            try manager.setTotalTimeout(0.4, for: $0)
        }
        XCTAssertEqual(timeoutKind(completion), "total")
        XCTAssertEqual(route.callCount, 1)
        XCTAssertEqual(task.map(retries.posted(for:))?.count, 0)
    }
}
