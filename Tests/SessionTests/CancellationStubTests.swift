import AFLocking
import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Cancelling a task of the libcurl transfer answered by a stub (no socket), in each phase of
/// its state machine: before it is resumed, while the interceptors adapt or decide, during the
/// reply's delay, its body or a held error body, on a redirect's next hop, while waiting to
/// retry. Each time the task completes once with `URLError.cancelled` soon after, and nothing
/// more is sent.
final class CancellationStubTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/v1/report")!

    /// An interceptor whose adaptation or decision (`stallsIn`) waits 30 s: it signals `entered`
    /// when it starts waiting, and records whether its wait was cancelled.
    private struct Stalling: RequestInterceptor {
        enum Phase { case adapt, retry }
        let stallsIn: Phase
        let entered = DispatchSemaphore(value: 0)
        let cancelled = Locked(false)

        func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
            if stallsIn == .adapt { try await stall() }
            return request
        }

        func retry(_ context: RetryContext) async -> RetryDecision {
            if stallsIn == .retry { try? await stall() }
            return .retry
        }

        private func stall() async throws {
            entered.signal()
            do {
                try await Task.sleep(nanoseconds: 30_000_000_000)
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
        }
    }

    /// Starts a task of `request` on `manager`, runs `then` with it once it is resumed, and
    /// waits for its one completion; a later one fails the test.
    private func cancelling(
        _ request: URLRequest, on manager: URLSessionManager, downloadProgress: URLSessionManager.ProgressHandler? = nil,
        then: (URLSessionTask) throws -> Void
    ) throws -> (task: URLSessionTask, completion: Completion) {
        let recorder = CompletionRecorder()
        let task = try manager.dataTask(with: request, downloadProgress: downloadProgress, completionHandler: recorder.handler)
        manager.resume(task)
        try then(task)
        wait(for: [recorder.expectation], timeout: 5)
        // A late event of the cancelled work (a timer, a reply) must not complete it again.
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(recorder.completions.count, 1)
        return (task, recorder.first)
    }

    private func assertCancelled(_ completion: Completion, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual((completion.error as? URLError)?.code, .cancelled, "\(String(describing: completion.error))", file: file, line: line)
    }

    /// Waits for the cancelled Swift task `call` and checks it threw `URLError.cancelled`.
    private func assertCancelled<Value>(_ call: Task<Value, any Error>, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            _ = try await call.value
            XCTFail("a cancelled request succeeded", file: file, line: line)
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .cancelled, "\(error)", file: file, line: line)
        }
    }

    /// Waits until `condition` holds (up to 5 s).
    private func waitUntil(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
        let deadline = Date() + 5
        while !condition(), Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        XCTAssertTrue(condition(), "never \(what)", file: file, line: line)
    }

    func testCancellingBeforeResumeSendsNothing() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(.text("ready"))
        let manager = makeManager(stubs: stubs)
        let completion = try complete { handler in
            let task = try manager.dataTask(with: URLRequest(url: url), completionHandler: handler)
            task.cancel()
            manager.resume(task)
        }
        assertCancelled(completion)
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(stubs.requests.count, 0)
    }

    func testCancellingWhileAdaptingSendsNothingAndCancelsTheAdaptation() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(.text("ready"))
        let interceptor = Stalling(stallsIn: .adapt)
        let (_, completion) = try cancelling(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: interceptor)) { task in
            XCTAssertEqual(interceptor.entered.wait(timeout: .now() + 5), .success)
            task.cancel()
        }
        assertCancelled(completion)
        waitUntil("cancelled the adaptation") { interceptor.cancelled.withLock { $0 } }
        XCTAssertEqual(stubs.requests.count, 0)
    }

    func testCancellingDuringTheRepliesDelayDeliversNoResponse() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("late").delayed(by: 30))
        let manager = makeManager(stubs: stubs)
        let responses = Locked(0)
        manager.overrides.dataTaskDidReceiveResponse = { _, _, _ in
            responses.withLock { $0 += 1 }
            return .allow
        }
        let (task, completion) = try cancelling(URLRequest(url: url), on: manager) { task in
            waitUntil("sent the request") { stubs.requests.count == 1 }
            task.cancel()
        }
        assertCancelled(completion)
        XCTAssertNil(completion.response)
        XCTAssertEqual(responses.withLock { $0 }, 0)
        XCTAssertEqual(task.state, .completed)
    }

    func testCancellingDuringTheBodyStopsItMidway() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.status(200, body: Data(count: 100)).chunked(1, every: 0.02))
        let firstByte = DispatchSemaphore(value: 0)
        let (task, completion) = try cancelling(URLRequest(url: url), on: makeManager(stubs: stubs), downloadProgress: { _ in firstByte.signal() }) { task in
            XCTAssertEqual(firstByte.wait(timeout: .now() + 5), .success)
            task.cancel()
        }
        assertCancelled(completion)
        XCTAssertEqual(completion.response?.statusCode, 200, "the response had arrived")
        let received = task.countOfBytesReceived
        XCTAssertGreaterThan(received, 0)
        XCTAssertLessThan(received, 100)
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(task.countOfBytesReceived, received, "bytes arrived after the cancel")
    }

    func testCancellingWhileAnErrorBodyIsHeldNeverHandsOnTheErrorResponse() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.status(503, body: Data(count: 100)).chunked(1, every: 0.02))
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        let (_, completion) = try cancelling(URLRequest(url: url), on: manager) { task in
            waitUntil("sent the request") { stubs.requests.count == 1 }
            Thread.sleep(forTimeInterval: 0.1)
            task.cancel()
        }
        assertCancelled(completion)
        XCTAssertNil(completion.response, "the held 503 reached the client")
        XCTAssertEqual(stubs.requests.count, 1)
    }

    func testCancellingOnARedirectsNextHopDeliversNoResponse() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(.redirect(to: "/v1/moved"))
        stubs.on("GET", "https://api.example.com/v1/moved").reply(StubReply.text("late").delayed(by: 30))
        let (_, completion) = try cancelling(URLRequest(url: url), on: makeManager(stubs: stubs)) { task in
            waitUntil("followed the redirect") { stubs.requests.count == 2 }
            task.cancel()
        }
        assertCancelled(completion)
        XCTAssertNil(completion.response, "the redirect was handed on")
    }

    func testCancellingWhileTheInterceptorsDecideSendsNoRetry() throws {
        let stubs = StubTransport()
        let route = stubs.on("GET", url.absoluteString).replies([.status(503), .text("ready")])
        let interceptor = Stalling(stallsIn: .retry)
        let (_, completion) = try cancelling(URLRequest(url: url), on: makeManager(stubs: stubs, interceptor: interceptor)) { task in
            XCTAssertEqual(interceptor.entered.wait(timeout: .now() + 5), .success)
            task.cancel()
        }
        assertCancelled(completion)
        XCTAssertNil(completion.response, "the held 503 reached the client")
        waitUntil("cancelled the decision") { interceptor.cancelled.withLock { $0 } }
        XCTAssertEqual(route.callCount, 1)
    }

    func testCancellingWhileWaitingToRetrySendsNoRetry() throws {
        let stubs = StubTransport()
        let route = stubs.on("GET", url.absoluteString).replies([.status(503, fields: ["Retry-After": "30"]), .text("ready")])
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        let retrying = expectation(forNotification: .taskWillRetry, object: nil)
        let (_, completion) = try cancelling(URLRequest(url: url), on: manager) { task in
            wait(for: [retrying], timeout: 5)
            task.cancel()
        }
        assertCancelled(completion)
        XCTAssertNil(completion.response)
        XCTAssertEqual(route.callCount, 1)
    }

    func testCancellingTheSwiftTaskWhileWaitingToRetryCancelsTheRequest() async throws {
        let stubs = StubTransport()
        let route = stubs.on("GET", url.absoluteString).replies([.status(503, fields: ["Retry-After": "30"]), .text("ready")])
        let manager = makeManager(stubs: stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        let retrying = expectation(forNotification: .taskWillRetry, object: nil)
        let request = URLRequest(url: url)
        let call = Task { try await manager.data(for: request) }
        await fulfillment(of: [retrying], timeout: 5)
        call.cancel()
        await assertCancelled(call)
        XCTAssertEqual(route.callCount, 1)
    }

    func testCancellingWhileTheRequestBodyIsProducedEndsItsProducer() async throws {
        let stubs = StubTransport()
        stubs.on("PUT", url.absoluteString).reply(.status(204))
        let manager = makeManager(stubs: stubs)
        // One chunk, then a body that never ends.
        let ended = expectation(description: "the body's producer ended")
        let chunks = AsyncStream<Data> { continuation in
            continuation.onTermination = { _ in ended.fulfill() }
            continuation.yield(Data("part".utf8))
        }
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        let call = Task { try await manager.stream(for: request, body: StreamedRequestBody(once: chunks)) }
        try await Task.sleep(nanoseconds: 200_000_000)
        call.cancel()
        await assertCancelled(call)
        // The stub records a request once its body ended, which this one never does: what shows
        // the cancellation reached the body is its producer ending.
        await fulfillment(of: [ended], timeout: 5)
    }

    func testCancellingACompletedTaskChangesNothing() throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(.text("ready"))
        let recorder = CompletionRecorder()
        let manager = makeManager(stubs: stubs)
        let task = try manager.dataTask(with: URLRequest(url: url), completionHandler: recorder.handler)
        manager.resume(task)
        wait(for: [recorder.expectation], timeout: 5)
        task.cancel()
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(recorder.completions.count, 1)
        XCTAssertNil(recorder.first.error)
        XCTAssertNil(task.error)
        XCTAssertEqual(task.state, .completed)
    }
}
