import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// `RetryPolicy` on a manager against scripted sequences of an in-process server, which records
/// what was sent and when it arrived (a reset, RST, by the fault server's sequences and log).
/// Interceptors put a manager on libcurl on either transport.
final class RetryPolicyIntegrationTests: XCTestCase {
    /// A manager whose policy waits exactly the backoff bound (no jitter), without a budget
    /// unless given one.
    private func makeRetryingManager(_ policy: RetryPolicy = RetryPolicy(budget: nil, jitter: { $0 })) -> URLSessionManager {
        makeManager(interceptor: policy)
    }

    /// A server answering its k-th request with the k-th of the comma-separated `steps` (the last
    /// repeating), as the fault server's `/seq/` does: a status ("503"), with a `Retry-After` in
    /// seconds ("503:1") or as the HTTP date that many seconds on ("503:date2"); a 2xx with the
    /// JSON {"attempt": k}, any other with {"error": status}. `arrivals`: when each request came.
    private func sequence(_ steps: String) throws -> (server: TestServer, arrivals: Locked<[Date]>) {
        let arrivals = Locked<[Date]>([])
        let steps = steps.split(separator: ",").map { $0.split(separator: ":", maxSplits: 1).map(String.init) }
        let server = try makeServer { _ in
            let attempt = arrivals.withLock { arrivals in
                arrivals.append(Date())
                return arrivals.count
            }
            let step = steps[min(attempt, steps.count) - 1]
            let status = Int(step[0]) ?? 0
            var fields = ["Content-Type": "application/json"]
            if step.count > 1, step[1].hasPrefix("date") {
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                fields["Retry-After"] = formatter.string(from: Date().addingTimeInterval(TimeInterval(step[1].dropFirst(4)) ?? 0))
            } else if step.count > 1 {
                fields["Retry-After"] = step[1]
            }
            let body = status < 300 ? #"{"attempt": \#(attempt)}"# : #"{"error": \#(status)}"#
            return .status(status, fields: fields, body: Data(body.utf8))
        }
        return (server, arrivals)
    }

    /// A POST of a small body to `server`, with an `Idempotency-Key` when given one.
    private func post(to server: TestServer, idempotencyKey: String? = nil) -> URLRequest {
        var request = URLRequest(url: server.baseURL)
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
        let (server, arrivals) = try sequence("503:1,503,200")
        let manager = makeRetryingManager()
        let (completion, metrics) = try run(URLRequest(url: server.baseURL), on: manager)
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(completion.object as? Data, Data(#"{"attempt": 3}"#.utf8))
        XCTAssertEqual(metrics?.attemptCount, 3)
        XCTAssertEqual(metrics?.transactionMetrics.map(\.attempt), [1, 2, 3])
        let times = arrivals.withLock { $0 }
        XCTAssertEqual(times.count, 3)
        let waits = zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
        // Never early; late by a loaded machine's scheduling at most (a wait is measured between
        // two requests' arrivals), short of the next step (the backoff doubled again: 0.8 s).
        XCTAssertGreaterThanOrEqual(waits[0], 0.95, "Retry-After: 1 honoured")
        XCTAssertLessThan(waits[0], 1.5, "Retry-After: 1 honoured")
        XCTAssertGreaterThanOrEqual(waits[1], 0.35, "the second retry's backoff bound: 0.2 s doubled")
        XCTAssertLessThan(waits[1], 0.75, "the second retry's backoff bound: 0.2 s doubled, not twice")
    }

    func testRetryAfterAsAnHTTPDateIsHonoured() throws {
        let (server, arrivals) = try sequence("503:date2,200")
        let manager = makeRetryingManager()
        let (completion, _) = try run(URLRequest(url: server.baseURL), on: manager)
        XCTAssertEqual(completion.status, 200)
        let times = arrivals.withLock { $0 }.map(\.timeIntervalSince1970)
        XCTAssertEqual(times.count, 2)
        // The date has whole seconds: the retry waits until it, not the backoff of 0.2 s.
        XCTAssertGreaterThanOrEqual(times[1], times[0].rounded(.down) + 2 - 0.05)
        XCTAssertLessThan(times[1] - times[0], 2.2)
    }

    func testARetryAfterLongerThanThePolicyAllowsIsNotWaitedFor() throws {
        let (server, _) = try sequence("503:3600,200")
        let manager = makeRetryingManager(RetryPolicy(maximumRetryAfter: 5, budget: nil))
        let (completion, _) = try run(URLRequest(url: server.baseURL), on: manager)
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testAPostIsNotRetriedByDefault() throws {
        let (server, _) = try sequence("503,200")
        let (completion, metrics) = try run(post(to: server), on: makeRetryingManager())
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(completion.object as? Data, Data(#"{"error": 503}"#.utf8), "the error response reaches the task with its body")
        XCTAssertEqual(metrics?.attemptCount, 1)
        XCTAssertEqual(server.requests.count, 1)
    }

    func testAPostWithAnIdempotencyKeyIsRetried() throws {
        let (server, _) = try sequence("503,200")
        let (completion, _) = try run(post(to: server, idempotencyKey: "order-17"), on: makeRetryingManager())
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(server.requests.map(\.method), ["POST", "POST"])
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Idempotency-Key") }, ["order-17", "order-17"])
    }

    func testTheBudgetStopsRetriesOnceSpent() throws {
        // A fifth of the requests may be retried: of ten failing once each, the fifth and the tenth.
        let manager = makeRetryingManager(RetryPolicy(budget: RetryBudget(window: 60, ratio: 0.2, minimumRetriesPerSecond: 0), jitter: { _ in 0 }))
        var statuses: [Int?] = []
        var requests = 0
        for _ in 0..<10 {
            let (server, _) = try sequence("503,200")
            statuses.append(try run(URLRequest(url: server.baseURL), on: manager).0.status)
            requests += server.requests.count
        }
        XCTAssertEqual(statuses, [503, 503, 503, 503, 200, 503, 503, 503, 503, 200])
        XCTAssertEqual(requests, 12)
    }

    func testCancellingDuringTheBackoffCompletesAtOnceWithCancelled() throws {
        let (server, _) = try sequence("503:30,200")
        let manager = makeRetryingManager()
        let retrying = expectation(forNotification: .taskWillRetry, object: nil)
        let recorder = CompletionRecorder()
        let task = try manager.dataTask(with: URLRequest(url: server.baseURL), completionHandler: recorder.handler)
        manager.resume(task)
        wait(for: [retrying], timeout: 10)
        let cancelled = Date()
        task.cancel()
        wait(for: [recorder.expectation], timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 0.5)
        XCTAssertEqual((recorder.first.error as? URLError)?.code, .cancelled)
        usleep(200_000)
        XCTAssertEqual(recorder.completions.count, 1)
        XCTAssertEqual(server.requests.count, 1, "the retry was never sent")
    }

    func testCancellingTheSwiftTaskDuringTheBackoffCancelsTheRequest() async throws {
        let (server, _) = try sequence("503:30,200")
        let manager = makeRetryingManager()
        let url = server.baseURL
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
        XCTAssertEqual(server.requests.count, 1)
    }

    func testAConnectionResetBeforeTheResponseIsRetried() throws {
        let (completion, metrics) = try run(URLRequest(url: try FaultServer.sequence(FaultServer.uniqueID(), "reset,200")), on: makeRetryingManager())
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(metrics?.attemptCount, 2)
    }

    func testAOneShotStreamBodyIsNotRetriedAndTheFailureSaysSo() throws {
        var request = URLRequest(url: try FaultServer.sequence(FaultServer.uniqueID(), "reset,200"))
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data(repeating: 7, count: 1000))
        let (completion, _) = try run(request, on: makeRetryingManager())
        let error = try XCTUnwrap(completion.error as? RetryError, "\(String(describing: completion.error))")
        guard case .bodyCannotBeReplayed(let underlying) = error else { return XCTFail("\(error)") }
        XCTAssertEqual((underlying as? URLError)?.code, .networkConnectionLost)
        XCTAssertEqual((error as NSError).code, URLError.requestBodyStreamExhausted.rawValue)
    }

    func testEachRetryIsNotifiedWithItsAttemptAndDelay() throws {
        let (server, _) = try sequence("500,502,200")
        let manager = makeRetryingManager()
        let notes = Locked<[(Int, Double, Int?)]>([])
        let observer = NotificationCenter.default.addObserver(forName: .taskWillRetry, object: nil, queue: nil) { note in
            let attempt = note.userInfo?[SessionNotificationKey.retryAttempt] as? Int ?? 0
            let delay = note.userInfo?[SessionNotificationKey.retryDelay] as? Double ?? -1
            let status = (note.userInfo?[SessionNotificationKey.retriedResponse] as? HTTPURLResponse)?.statusCode
            notes.withLock { $0.append((attempt, delay, status)) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let (completion, _) = try run(URLRequest(url: server.baseURL), on: manager)
        XCTAssertEqual(completion.status, 200)
        let seen = notes.withLock { $0 }
        XCTAssertEqual(seen.map(\.0), [1, 2])
        XCTAssertEqual(seen.map(\.1), [0.2, 0.4])
        XCTAssertEqual(seen.map(\.2), [500, 502])
    }
}
