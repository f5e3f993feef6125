import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The idle and total timeouts of the libcurl transfer answered by a stub (no socket), whose
/// delays and pauses run them out as a server's silence would: which one fires, when, across
/// redirects and retries. Time is a `TestClock`'s: every timeout fires exactly at its
/// deadline, in no time. The server tests are `TimeoutTests` (TransportTests).
final class TimeoutStubTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/v1/slow")!
    private let slower = URL(string: "https://api.example.com/v1/slower")!
    private let clock = TestClock()

    /// `url` with an idle timeout of `idle` seconds.
    private func request(idle: TimeInterval) -> URLRequest {
        var request = URLRequest(url: url)
        request.timeoutInterval = idle
        return request
    }

    /// A stub table on the test's clock.
    private func stubs() -> StubTransport {
        StubTransport(clock: clock)
    }

    /// A manager on `stubs` whose session configuration `configure` sets, with `interceptor`.
    private func manager(
        _ stubs: StubTransport, interceptor: (any RequestInterceptor)? = nil, configure: (URLSessionConfiguration) -> Void = { _ in }
    ) -> URLSessionManager {
        let configuration = URLSessionConfiguration.ephemeral
        configure(configuration)
        let manager = URLSessionManager(configuration: configuration, transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        manager.interceptor = interceptor
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// A resumed data task of `request` on `manager` (`prepare` sees it first) and its completions.
    private func start(
        _ request: URLRequest, on manager: URLSessionManager, prepare: (URLSessionTask) throws -> Void = { _ in }
    ) throws -> (task: URLSessionTask, recorder: CompletionRecorder) {
        let recorder = CompletionRecorder()
        let task = try manager.dataTask(with: request, completionHandler: recorder.handler)
        try prepare(task)
        task.resume()
        return (task, recorder)
    }

    /// Advances the clock by `seconds`; whether `task` completed by then. The transport
    /// completes a task on its queue, which the clock waits for.
    private func advance(_ seconds: TimeInterval, completes task: URLSessionTask) -> Bool {
        clock.advance(by: seconds)
        return task.state == .completed
    }

    /// The task's one completion.
    private func completion(of recorder: CompletionRecorder) -> Completion {
        wait(for: [recorder.expectation], timeout: 5)
        return recorder.first
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

    /// Waits (in real time, at most 5 s) until `condition` holds: for work that leaves the
    /// transport's queue, such as an interceptor's decision.
    private func waitUntil(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(5)
        while !condition() && Date() < deadline { usleep(1_000) }
        XCTAssertTrue(condition(), "not reached in 5 s", file: file, line: line)
    }

    func testAPauseInTheBodyLongerThanTheIdleTimeoutFailsAsIdleWhenItRunsOut() throws {
        let stubs = stubs()
        stubs.on("GET", url.absoluteString).reply(StubReply.status(200, body: Data("abcd".utf8)).chunked(2, every: 30))
        let (task, recorder) = try start(request(idle: 10), on: manager(stubs))
        XCTAssertFalse(advance(9.999, completes: task))
        XCTAssertEqual(task.countOfBytesReceived, 2, "the first chunk arrived before the pause")
        XCTAssertTrue(advance(0.001, completes: task))
        XCTAssertEqual(timeoutKind(completion(of: recorder)), "idle")
        XCTAssertEqual(task.countOfBytesReceived, 2)
    }

    func testATotalTimeoutEndsADelayedReplyWithinTheIdleTimeout() throws {
        let stubs = stubs()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 60))
        let manager = manager(stubs)
        let (task, recorder) = try start(request(idle: 30), on: manager) { try manager.setTotalTimeout(20, for: $0) }
        XCTAssertFalse(advance(19.999, completes: task))
        XCTAssertTrue(advance(0.001, completes: task))
        XCTAssertEqual(timeoutKind(completion(of: recorder)), "total")
    }

    func testTheConfigurationsResourceTimeoutIsTheTotalTimeout() throws {
        let stubs = stubs()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 60))
        let (task, recorder) = try start(request(idle: 30), on: manager(stubs) { $0.timeoutIntervalForResource = 20 })
        XCTAssertFalse(advance(19.999, completes: task))
        XCTAssertTrue(advance(0.001, completes: task))
        XCTAssertEqual(timeoutKind(completion(of: recorder)), "total")
    }

    func testTheConfigurationsRequestTimeoutIsTheIdleTimeoutOfARequestWithoutItsOwn() throws {
        let stubs = stubs()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 60))
        let (task, recorder) = try start(URLRequest(url: url), on: manager(stubs) { $0.timeoutIntervalForRequest = 10 })
        XCTAssertFalse(advance(9.999, completes: task))
        XCTAssertTrue(advance(0.001, completes: task))
        XCTAssertEqual(timeoutKind(completion(of: recorder)), "idle")
    }

    func testTheTotalTimeoutCountsEveryHopOfARedirect() throws {
        // Each hop alone is within the total; together they are not.
        let stubs = stubs()
        stubs.on("GET", url.absoluteString).reply(StubReply.redirect(to: "/v1/slower").delayed(by: 15))
        stubs.on("GET", slower.absoluteString).reply(StubReply.text("late").delayed(by: 15))
        let manager = manager(stubs)
        let (task, recorder) = try start(request(idle: 30), on: manager) { try manager.setTotalTimeout(20, for: $0) }
        XCTAssertFalse(advance(15, completes: task))
        XCTAssertEqual(stubs.requests.count, 2, "the redirect was followed at 15 s")
        XCTAssertFalse(advance(4.999, completes: task))
        XCTAssertTrue(advance(0.001, completes: task))
        XCTAssertEqual(timeoutKind(completion(of: recorder), failingURL: slower), "total")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testAHopsDelayDoesNotCountTowardTheNextHopsIdleTimeout() throws {
        // The idle timeout is per silence: two hops each silent for less than it succeed.
        let stubs = stubs()
        stubs.on("GET", url.absoluteString).reply(StubReply.redirect(to: "/v1/slower").delayed(by: 15))
        stubs.on("GET", slower.absoluteString).reply(StubReply.text("ready").delayed(by: 15))
        let (task, recorder) = try start(request(idle: 20), on: manager(stubs))
        XCTAssertFalse(advance(15, completes: task))
        XCTAssertTrue(advance(15, completes: task))
        let completion = completion(of: recorder)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.text, "ready")
    }

    func testAnAttemptThatTimedOutIsRetriedByThePolicy() throws {
        let stubs = stubs()
        let route = stubs.on("GET", url.absoluteString).replies([StubReply.text("late").delayed(by: 30), .text("ready")])
        let (_, recorder) = try start(request(idle: 10), on: manager(stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 })))
        // The interceptor adapts each attempt's request, and decides on a retry, away from the
        // transport's queue: the clock is advanced once the attempt was sent. A retry without
        // a wait runs as soon as it is decided.
        waitUntil { route.callCount == 1 }
        clock.advance(by: 10)
        let completion = completion(of: recorder)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.text, "ready")
        XCTAssertEqual(route.callCount, 2)
    }

    func testATotalTimeoutIsNotRetriedPastItself() throws {
        // Each attempt times out idle after 10 s and is retried at once; the total of 25 s
        // ends the third.
        let stubs = stubs()
        let route = stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 60))
        let manager = manager(stubs, interceptor: RetryPolicy(maximumRetries: 10, budget: nil, jitter: { _ in 0 }))
        let (task, recorder) = try start(request(idle: 10), on: manager) { try manager.setTotalTimeout(25, for: $0) }
        for attempt in 1...2 {
            waitUntil { route.callCount == attempt }
            XCTAssertFalse(advance(10, completes: task))
        }
        waitUntil { route.callCount == 3 }
        XCTAssertFalse(advance(4.999, completes: task))
        XCTAssertTrue(advance(0.001, completes: task))
        XCTAssertEqual(timeoutKind(completion(of: recorder)), "total")
        XCTAssertEqual(route.callCount, 3)
    }

    /// A task with a total timeout of 20 s whose first answer is a 503 asking for a retry after
    /// `retryAfter` seconds, the second "ready"; returned once its policy decided to retry.
    private func startRetryingAfter503(retryAfter: Int) throws -> (task: URLSessionTask, recorder: CompletionRecorder, route: StubRoute) {
        let stubs = stubs()
        let route = stubs.on("GET", url.absoluteString).replies([.status(503, fields: ["Retry-After": String(retryAfter)]), .text("ready")])
        let manager = manager(stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        let retries = NotificationLog(.taskWillRetry)
        let (task, recorder) = try start(request(idle: 30), on: manager) { try manager.setTotalTimeout(20, for: $0) }
        waitUntil { retries.posted(for: task).count == 1 }
        return (task, recorder, route)
    }

    func testARetryWaitPastTheTotalTimeoutFailsAsTotalWhenTheTotalRunsOut() throws {
        // A 20 s total and a Retry-After of 21 s: the task ends at 20 s, without the retry.
        let (task, recorder, route) = try startRetryingAfter503(retryAfter: 21)
        XCTAssertFalse(advance(19.999, completes: task))
        XCTAssertTrue(advance(0.001, completes: task))
        XCTAssertEqual(timeoutKind(completion(of: recorder)), "total")
        XCTAssertEqual(route.callCount, 1)
    }

    func testARetryWaitWithinTheTotalTimeoutIsWaitedFor() throws {
        let (task, recorder, route) = try startRetryingAfter503(retryAfter: 19)
        XCTAssertFalse(advance(18.999, completes: task))
        XCTAssertEqual(route.callCount, 1)
        // The retry's request is adapted away from the transport's queue: waited for.
        clock.advance(by: 0.001)
        XCTAssertEqual(completion(of: recorder).text, "ready")
        XCTAssertEqual(route.callCount, 2)
    }

    func testATotalTimeoutDuringAHopEndsTheTaskWithoutAskingTheInterceptors() throws {
        // The policy would retry a timeout after 5 s: the total of 20 s ends the task instead,
        // with no retry announced and none sent.
        let stubs = stubs()
        let route = stubs.on("GET", url.absoluteString).replies([StubReply.text("late").delayed(by: 60), .text("ready")])
        let manager = manager(stubs, interceptor: RetryPolicy(backoffBase: 5, budget: nil, jitter: { $0 }))
        let retries = NotificationLog(.taskWillRetry)
        let (task, recorder) = try start(request(idle: 30), on: manager) { try manager.setTotalTimeout(20, for: $0) }
        waitUntil { route.callCount == 1 }
        XCTAssertFalse(advance(19.999, completes: task))
        XCTAssertTrue(advance(0.001, completes: task))
        XCTAssertEqual(timeoutKind(completion(of: recorder)), "total")
        XCTAssertEqual(route.callCount, 1)
        XCTAssertEqual(retries.posted(for: task).count, 0)
    }

    func testCancellingDuringAReplysDelayEndsTheTaskAtOnceCancelled() throws {
        let stubs = stubs()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 60))
        let manager = manager(stubs)
        let (task, recorder) = try start(request(idle: 30), on: manager)
        XCTAssertFalse(advance(5, completes: task))
        task.cancel()
        XCTAssertEqual((completion(of: recorder).error as? URLError)?.code, .cancelled)
        // The reply's delay and the timeouts ran out later, and nothing else happened.
        clock.advance(by: 60)
        manager.completionGroup.wait()
        XCTAssertEqual(recorder.completions.count, 1)
    }

    func testCancellingDuringARetryWaitEndsTheTaskWithoutTheRetry() throws {
        let stubs = stubs()
        let route = stubs.on("GET", url.absoluteString).replies([.status(503, fields: ["Retry-After": "10"]), .text("ready")])
        let retries = NotificationLog(.taskWillRetry)
        let manager = manager(stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        let (task, recorder) = try start(request(idle: 30), on: manager)
        waitUntil { retries.posted(for: task).count == 1 }
        XCTAssertFalse(advance(5, completes: task))
        task.cancel()
        XCTAssertEqual((completion(of: recorder).error as? URLError)?.code, .cancelled)
        // Past the wait: a retry timer left running would fire here (and, out of its phase,
        // stop a debug build); none does.
        clock.advance(by: 10)
        manager.completionGroup.wait()
        XCTAssertEqual(route.callCount, 1)
        XCTAssertEqual(recorder.completions.count, 1)
    }
}
