import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// `RetryPolicy` on a manager against the fault server's scripted sequences, whose request log
/// shows what was sent and when. Interceptors put a manager on libcurl on either transport.
final class RetryPolicyIntegrationTests: XCTestCase {
    /// A manager whose policy waits exactly the backoff bound (no jitter), without a budget
    /// unless given one.
    private func makeRetryingManager(_ policy: RetryPolicy = RetryPolicy(budget: nil, jitter: { $0 })) -> URLSessionManager {
        makeManager(interceptor: policy)
    }

    private func sequence(_ id: Int, _ steps: String) throws -> URL {
        try FaultServer.sequence(id, steps)
    }

    /// A POST of a small body to the sequence `steps`, with an `Idempotency-Key` when given one.
    private func post(_ id: Int, _ steps: String, idempotencyKey: String? = nil) throws -> URLRequest {
        var request = URLRequest(url: try sequence(id, steps))
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        return request
    }

    /// Runs `request` and returns its one completion and metrics.
    private func run(_ request: URLRequest, on manager: URLSessionManager, timeout: TimeInterval = 15) throws -> (Completion, TaskMetrics?) {
        let metrics = Locked<TaskMetrics?>(nil)
        var overrides = SessionDelegateOverrides()
        overrides.taskDidFinishCollectingMetrics = { _, _, collected in metrics.withLock { $0 = collected } }
        manager.overrides = overrides
        let completion = try complete(timeout: timeout) { handler in manager.resume(try manager.dataTask(with: request, completionHandler: handler)) }
        return (completion, metrics.withLock { $0 })
    }

    func testTwo503sThenA200SucceedOnceAfterThreeAttemptsWithinThePolicysDelays() throws {
        let id = FaultServer.uniqueID()
        let manager = makeRetryingManager()
        let (completion, metrics) = try run(URLRequest(url: try sequence(id, "503:1,503,200")), on: manager)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(completion.object as? Data, Data(#"{"attempt": 3}"#.utf8))
        XCTAssertEqual(metrics?.attemptCount, 3)
        XCTAssertEqual(metrics?.transactionMetrics.map(\.attempt), [1, 2, 3])
        let log = try FaultServer.log(id)
        XCTAssertEqual(log.count, 3)
        let waits = zip(log.dropFirst(), log).map { $0.time - $1.time }
        // Never early; late by a loaded machine's scheduling at most (a wait is measured between
        // two requests' arrivals), short of the next step (the backoff doubled again: 0.8 s).
        XCTAssertGreaterThanOrEqual(waits[0], 0.95, "Retry-After: 1 honoured")
        XCTAssertLessThan(waits[0], 1.5, "Retry-After: 1 honoured")
        XCTAssertGreaterThanOrEqual(waits[1], 0.35, "the second retry's backoff bound: 0.2 s doubled")
        XCTAssertLessThan(waits[1], 0.75, "the second retry's backoff bound: 0.2 s doubled, not twice")
    }

    func testRetryAfterAsAnHTTPDateIsHonoured() throws {
        let id = FaultServer.uniqueID()
        let manager = makeRetryingManager()
        let (completion, _) = try run(URLRequest(url: try sequence(id, "503:date2,200")), on: manager)
        XCTAssertEqual(completion.status, 200)
        let log = try FaultServer.log(id)
        XCTAssertEqual(log.count, 2)
        // The date has whole seconds: the retry waits until it, not the backoff of 0.2 s.
        XCTAssertGreaterThanOrEqual(log[1].time, log[0].time.rounded(.down) + 2 - 0.05)
        XCTAssertLessThan(log[1].time - log[0].time, 2.2)
    }

    func testARetryAfterLongerThanThePolicyAllowsIsNotWaitedFor() throws {
        let id = FaultServer.uniqueID()
        let manager = makeRetryingManager(RetryPolicy(maximumRetryAfter: 5, budget: nil))
        let (completion, _) = try run(URLRequest(url: try sequence(id, "503:3600,200")), on: manager)
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(try FaultServer.log(id).count, 1)
    }

    func testAPostIsNotRetriedByDefault() throws {
        let id = FaultServer.uniqueID()
        let (completion, metrics) = try run(try post(id, "503,200"), on: makeRetryingManager())
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(completion.object as? Data, Data(#"{"error": 503}"#.utf8), "the error response reaches the task with its body")
        XCTAssertEqual(metrics?.attemptCount, 1)
        XCTAssertEqual(try FaultServer.log(id).count, 1)
    }

    func testAPostWithAnIdempotencyKeyIsRetried() throws {
        let id = FaultServer.uniqueID()
        let (completion, _) = try run(try post(id, "503,200", idempotencyKey: "order-17"), on: makeRetryingManager())
        XCTAssertEqual(completion.status, 200)
        let log = try FaultServer.log(id)
        XCTAssertEqual(log.map(\.method), ["POST", "POST"])
        XCTAssertEqual(log.map(\.idempotencyKey), ["order-17", "order-17"])
    }

    func testTheBudgetStopsRetriesOnceSpent() throws {
        // A fifth of the requests may be retried: of ten failing once each, the fifth and the tenth.
        let manager = makeRetryingManager(RetryPolicy(budget: RetryBudget(window: 60, ratio: 0.2, minimumRetriesPerSecond: 0), jitter: { _ in 0 }))
        var statuses: [Int?] = []
        var requests = 0
        for _ in 0..<10 {
            let id = FaultServer.uniqueID()
            statuses.append(try run(URLRequest(url: try sequence(id, "503,200")), on: manager).0.status)
            requests += try FaultServer.log(id).count
        }
        XCTAssertEqual(statuses, [503, 503, 503, 503, 200, 503, 503, 503, 503, 200])
        XCTAssertEqual(requests, 12)
    }

    func testCancellingDuringTheBackoffCompletesAtOnceWithCancelled() throws {
        let id = FaultServer.uniqueID()
        let manager = makeRetryingManager()
        let retrying = expectation(forNotification: .taskWillRetry, object: nil)
        let recorder = CompletionRecorder()
        let task = try manager.dataTask(with: URLRequest(url: try sequence(id, "503:30,200")), completionHandler: recorder.handler)
        manager.resume(task)
        wait(for: [retrying], timeout: 10)
        let cancelled = Date()
        task.cancel()
        wait(for: [recorder.expectation], timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 0.5)
        XCTAssertEqual((recorder.first.error as? URLError)?.code, .cancelled)
        usleep(200_000)
        XCTAssertEqual(recorder.completions.count, 1)
        XCTAssertEqual(try FaultServer.log(id).count, 1, "the retry was never sent")
    }

    func testCancellingTheSwiftTaskDuringTheBackoffCancelsTheRequest() async throws {
        let id = FaultServer.uniqueID()
        let manager = makeRetryingManager()
        let url = try sequence(id, "503:30,200")
        let retrying = expectation(forNotification: .taskWillRetry, object: nil)
        let call = Task { try await manager.data(for: URLRequest(url: url)) }
        await fulfillment(of: [retrying], timeout: 10)
        let cancelled = Date()
        call.cancel()
        do {
            _ = try await call.value
            XCTFail("expected a cancellation")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .cancelled, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 0.5)
        XCTAssertEqual(try FaultServer.log(id).count, 1)
    }

    func testAConnectionResetBeforeTheResponseIsRetried() throws {
        let id = FaultServer.uniqueID()
        let (completion, metrics) = try run(URLRequest(url: try sequence(id, "reset,200")), on: makeRetryingManager())
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(metrics?.attemptCount, 2)
    }

    func testAOneShotStreamBodyIsNotRetriedAndTheFailureSaysSo() throws {
        let id = FaultServer.uniqueID()
        var request = URLRequest(url: try sequence(id, "reset,200"))
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data(repeating: 7, count: 1000))
        let (completion, _) = try run(request, on: makeRetryingManager())
        let error = try XCTUnwrap(completion.error as? RetryError, "\(String(describing: completion.error))")
        guard case .bodyCannotBeReplayed(let underlying) = error else { return XCTFail("\(error)") }
        XCTAssertEqual((underlying as? URLError)?.code, .networkConnectionLost)
        XCTAssertEqual((error as NSError).code, URLError.requestBodyStreamExhausted.rawValue)
    }

    func testEachRetryIsNotifiedWithItsAttemptAndDelay() throws {
        let id = FaultServer.uniqueID()
        let manager = makeRetryingManager()
        let notes = Locked<[(Int, Double, Int?)]>([])
        let observer = NotificationCenter.default.addObserver(forName: .taskWillRetry, object: nil, queue: nil) { note in
            let attempt = note.userInfo?[SessionNotificationKey.retryAttempt] as? Int ?? 0
            let delay = note.userInfo?[SessionNotificationKey.retryDelay] as? Double ?? -1
            let status = (note.userInfo?[SessionNotificationKey.retriedResponse] as? HTTPURLResponse)?.statusCode
            notes.withLock { $0.append((attempt, delay, status)) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let (completion, _) = try run(URLRequest(url: try sequence(id, "500,502,200")), on: manager)
        XCTAssertEqual(completion.status, 200)
        let seen = notes.withLock { $0 }
        XCTAssertEqual(seen.map(\.0), [1, 2])
        XCTAssertEqual(seen.map(\.1), [0.2, 0.4])
        XCTAssertEqual(seen.map(\.2), [500, 502])
    }
}
