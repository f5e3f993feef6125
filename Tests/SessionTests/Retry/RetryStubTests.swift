import AFLocking
import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Interceptor retries on the libcurl transfer answered by a stub (no socket): what a
/// `RetryPolicy` retries and waits, the error response held back while it decides and released
/// when it gives up, and a cut body continued by a range request. The server tests are
/// `RetryPolicyIntegrationTests` and `RetryContinuationTests`.
final class RetryStubTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/v1/report")!

    /// A policy waiting exactly its backoff bound (`base` doubled per retry), without a budget.
    private func policy(base: TimeInterval = 0.01, maximumRetries: Int = 2, maximumRetryAfter: TimeInterval = 60) -> RetryPolicy {
        RetryPolicy(maximumRetries: maximumRetries, backoffBase: base, maximumRetryAfter: maximumRetryAfter, budget: nil, jitter: { $0 })
    }

    /// A stub answering `url` with `replies` in order (the last repeating), and its route.
    private func stubs(_ replies: [StubReply]) -> (StubTransport, StubRoute) {
        let stubs = StubTransport()
        let route = stubs.on(nil, url.absoluteString).replies(replies)
        return (stubs, route)
    }

    /// The `taskWillRetry` notifications of the task `run` made, as (attempt, delay, status).
    private func retriesNotified(_ request: URLRequest, on manager: URLSessionManager) throws -> (Completion, [(Int, Double, Int?)]) {
        let log = NotificationLog(.taskWillRetry)
        var task: URLSessionTask?
        let completion = try run(request, on: manager) { task = $0 }
        let notes = task.map(log.posted(for:)) ?? []
        return (completion, notes.map { note in
            (note.userInfo?[SessionNotificationKey.retryAttempt] as? Int ?? 0, note.userInfo?[SessionNotificationKey.retryDelay] as? Double ?? -1,
             (note.userInfo?[SessionNotificationKey.retriedResponse] as? HTTPURLResponse)?.statusCode)
        })
    }

    func testTwo503sThenA200SucceedOnTheThirdAttempt() throws {
        let (stubs, route) = stubs([.status(503), .status(503), .text("ready")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(completion.text, "ready")
        XCTAssertEqual(route.callCount, 3)
    }

    func testTheMetricsCountEveryAttempt() throws {
        let (stubs, _) = stubs([.status(500), .status(502), .text("ready")])
        let manager = makeManager(stubs: stubs, interceptor: policy())
        let metrics = Locked<TaskMetrics?>(nil)
        manager.overrides.taskDidFinishCollectingMetrics = { _, _, collected in metrics.withLock { $0 = collected } }
        _ = try run(URLRequest(url: url), on: manager)
        manager.operationQueue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(metrics.withLock { $0 }?.attemptCount, 3)
        XCTAssertEqual(metrics.withLock { $0 }?.transactionMetrics.map(\.attempt), [1, 2, 3])
    }

    func testEachRetryWaitsTheBackoffBoundDoubledAndIsNotifiedWithTheRetriedResponse() throws {
        let (stubs, _) = stubs([.status(500), .status(502), .text("ready")])
        let (completion, notes) = try retriesNotified(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy(base: 0.05)))
        XCTAssertEqual(completion.status, 200)
        XCTAssertEqual(notes.map(\.0), [1, 2])
        XCTAssertEqual(notes.map(\.1), [0.05, 0.1])
        XCTAssertEqual(notes.map(\.2), [500, 502])
    }

    func testARetryAfterInSecondsIsWaitedInsteadOfTheBackoff() throws {
        let stubs = StubTransport()
        let sent = Locked<[Date]>([])
        stubs.on("GET", url.absoluteString).reply { _ in
            let count = sent.withLock { sent in
                sent.append(Date())
                return sent.count
            }
            return count == 1 ? .status(503, fields: ["Retry-After": "1"]) : .text("ready")
        }
        let (completion, notes) = try retriesNotified(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual(completion.text, "ready")
        XCTAssertEqual(notes.map(\.1), [1.0])
        let times = sent.withLock { $0 }
        XCTAssertEqual(times.count, 2)
        if times.count == 2 { XCTAssertGreaterThanOrEqual(times[1].timeIntervalSince(times[0]), 0.95, "the retry went before Retry-After") }
    }

    func testARetryAfterLongerThanThePolicyAllowsIsNotRetried() throws {
        let (stubs, route) = stubs([.status(503, fields: ["Retry-After": "3600"], body: Data("later".utf8)), .text("ready")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy(maximumRetryAfter: 5)))
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(completion.text, "later")
        XCTAssertEqual(route.callCount, 1)
    }

    func testMaximumRetriesBoundsTheAttempts() throws {
        let (stubs, route) = stubs([.status(503)])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy(maximumRetries: 1)))
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(route.callCount, 2)
    }

    func testARetryStartsOverFromTheOriginalRequestNotTheRedirectTarget() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(.redirect(to: "/v1/moved"))
        stubs.on("GET", "https://api.example.com/v1/moved").replies([.status(503), .text("ready")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual(completion.text, "ready")
        XCTAssertEqual(stubs.requests.map(\.path), ["/v1/report", "/v1/moved", "/v1/report", "/v1/moved"])
    }

    // MARK: The held error response

    func testWhenRetriesGiveUpTheLastErrorResponseReachesTheClientWithItsBody() throws {
        let (stubs, route) = stubs([.text("first", status: 503), .text("second", status: 503), .text("busy", status: 503)])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(completion.text, "busy")
        XCTAssertEqual(route.callCount, 3)
    }

    func testAnErrorResponseHeldForARetryNeverReachesTheResponseOverride() throws {
        let (stubs, _) = stubs([.text("busy", status: 503), .text("ready")])
        let manager = makeManager(stubs: stubs, interceptor: policy())
        let statuses = Locked<[Int]>([])
        manager.overrides.dataTaskDidReceiveResponse = { _, _, response in
            statuses.withLock { $0.append((response as? HTTPURLResponse)?.statusCode ?? 0) }
            return .allow
        }
        let completion = try run(URLRequest(url: url), on: manager)
        XCTAssertEqual(completion.text, "ready")
        XCTAssertEqual(statuses.withLock { $0 }, [200])
    }

    func testAnErrorBodyOfExactlyTheHoldIsStillHeldAndRetried() throws {
        let body = Data(count: RetryContext.maximumHeldBodyLength)
        let (stubs, route) = stubs([StubReply.status(503, body: body).chunked(64 * 1024), .text("ready")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual(completion.text, "ready")
        XCTAssertEqual(route.callCount, 2)
    }

    func testAnErrorBodyLargerThanTheHoldGoesToTheClientWithoutARetry() throws {
        let body = Data((0..<(RetryContext.maximumHeldBodyLength + 1)).map { UInt8($0 % 251) })
        let (stubs, route) = stubs([StubReply.status(503, body: body).chunked(64 * 1024), .text("ready")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(completion.object as? Data, body)
        XCTAssertEqual(route.callCount, 1)
    }

    // MARK: What is retried

    func testAPostIsNotRetriedByDefaultAndItsErrorResponseReachesTheClient() throws {
        let (stubs, route) = stubs([.text("busy", status: 503), .text("created")])
        let completion = try run(URLRequest("POST", url, body: "payload"), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual(completion.status, 503)
        XCTAssertEqual(completion.text, "busy")
        XCTAssertEqual(route.callCount, 1)
    }

    func testAPostWithAnIdempotencyKeyIsRetriedWithItsBodyAndKey() throws {
        let (stubs, route) = stubs([.status(503), .text("created")])
        var request = URLRequest("POST", url, body: "payload")
        request.setValue("order-17", forHTTPHeaderField: "Idempotency-Key")
        let completion = try run(request, on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual(completion.text, "created")
        XCTAssertEqual(route.requests.map(\.text), ["payload", "payload"])
        XCTAssertEqual(route.requests.map { $0.value(forHeader: "Idempotency-Key") }, ["order-17", "order-17"])
    }

    func testAFailureToConnectIsRetried() throws {
        let (stubs, route) = stubs([.failure(.cannotConnectToHost), .text("ready")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual(completion.text, "ready")
        XCTAssertEqual(route.callCount, 2)
    }

    func testAFailureThePolicyDoesNotRetryFailsTheTaskAtOnce() throws {
        let (stubs, route) = stubs([.failure(.badServerResponse), .text("ready")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual((completion.error as? URLError)?.code, .badServerResponse)
        XCTAssertEqual(route.callCount, 1)
    }

    func testAOneShotStreamBodyIsNotRetriedAndTheFailureSaysSo() throws {
        let (stubs, route) = stubs([.failure(.networkConnectionLost), .text("stored")])
        let manager = makeManager(stubs: stubs, interceptor: policy())
        var request = URLRequest("PUT", url)
        request.httpBodyStream = InputStream(data: Data("payload".utf8))
        let completion = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        guard case .bodyCannotBeReplayed(let underlying)? = completion.error as? RetryError else {
            return XCTFail("expected bodyCannotBeReplayed, got \(String(describing: completion.error))")
        }
        XCTAssertEqual((underlying as? URLError)?.code, .networkConnectionLost)
        XCTAssertEqual(route.callCount, 1)
    }

    func testEachAttemptIsAdaptedAgainWithItsNumber() throws {
        let (stubs, route) = stubs([.status(503), .status(503), .text("ready")])
        let chain = InterceptorChain([HeaderInterceptor(name: "X-Attempt") { String($0) }, policy()])
        _ = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: chain))
        XCTAssertEqual(route.requests.map { $0.value(forHeader: "X-Attempt") }, ["1", "2", "3"])
    }

    func testAnInterceptorsFailDecisionFailsTheTaskWithItsError() throws {
        struct GaveUp: Error {}
        struct Failing: RequestInterceptor {
            func retry(_ context: RetryContext) async -> RetryDecision { .fail(GaveUp()) }
        }
        let (stubs, route) = stubs([.status(503), .text("ready")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: Failing()))
        XCTAssertTrue(completion.error is GaveUp, "\(String(describing: completion.error))")
        XCTAssertEqual(route.callCount, 1)
    }

    // MARK: A cut body

    /// A 10-byte body `0123456789` with a strong ETag, cut after 4 bytes, and the stub's route
    /// for the rest (asked for with `Range: bytes=4-`), which answers `rest`.
    private func cutBody(rest: StubReply) -> StubTransport {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString, headers: ["Range": "bytes=4-"]).reply(rest)
        stubs.on("GET", url.absoluteString).reply(StubReply.status(200, fields: ["ETag": #""v1""#], body: Data("0123456789".utf8)).cut(afterBodyBytes: 4))
        return stubs
    }

    func testABodyCutAfterItsResponseContinuesWithARangeRequest() throws {
        let stubs = cutBody(rest: .status(206, fields: ["Content-Range": "bytes 4-9/10", "ETag": #""v1""#], body: Data("456789".utf8)))
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertNil(completion.error)
        XCTAssertEqual(completion.status, 200, "the task's response is the first one")
        XCTAssertEqual(completion.text, "0123456789")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Range") }, [nil, "bytes=4-"])
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "If-Range") }, [nil, #""v1""#])
    }

    func testARangeAnswerThatDoesNotContinueTheBodyFailsWithTheCut() throws {
        let stubs = cutBody(rest: .status(200, fields: ["ETag": #""v2""#], body: Data("abcdefghij".utf8)))
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual((completion.error as? URLError)?.code, .networkConnectionLost, "\(String(describing: completion.error))")
        XCTAssertEqual(stubs.requests.count, 2)
    }

    func testABodyCutWithoutAValidatorIsNotRetried() throws {
        let (stubs, route) = stubs([StubReply.status(200, body: Data("0123456789".utf8)).cut(afterBodyBytes: 4), .text("0123456789")])
        let completion = try run(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: policy()))
        XCTAssertEqual((completion.error as? URLError)?.code, .networkConnectionLost)
        XCTAssertEqual(route.callCount, 1)
    }
}
