import AFLocking
import AFNetworkingTesting
import AFSerialization
@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The manager's own tasks on libcurl (here its stub, no socket): URLSession data tasks to
/// their callers, run by the manager with no URLSession task layer.
final class ManagedDataTaskTests: XCTestCase {
    private let base = URL(string: "https://api.example.com")!

    /// A manager answered by `stubs`, its body kept as bytes.
    private func manager(_ stubs: StubTransport) -> URLSessionManager {
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// Records a task's completion.
    private final class Completion: Sendable {
        let expectation: XCTestExpectation
        let calls = Locked<[(response: HTTPURLResponse?, object: (any Sendable)?, error: (any Error)?)]>([])

        init(_ test: XCTestCase) {
            expectation = test.expectation(description: "completed")
        }

        var handler: URLSessionManager.CompletionHandler {
            { [self] response, object, error in
                calls.withLock { $0.append((response as? HTTPURLResponse, object, error)) }
                expectation.fulfill()
            }
        }

        var error: (any Error)? { calls.withLock { $0.first?.error } }
        var body: String? { calls.withLock { $0.first?.object as? Data }.map { String(decoding: $0, as: UTF8.self) } }
    }

    func testTasksAreTheManagersOwnDataTasksNumberedFromOneAndSuspendedUntilResumed() throws {
        let manager = manager(StubTransport())
        let first = try manager.dataTask(with: URLRequest(url: base.appendingPathComponent("a")))
        let second = try manager.dataTask(with: URLRequest(url: base.appendingPathComponent("b")))
        XCTAssertTrue(first is ManagedDataTask)
        XCTAssertTrue(first is URLSessionDataTask)
        XCTAssertEqual([first.taskIdentifier, second.taskIdentifier], [1, 2])
        XCTAssertEqual(first.state, .suspended)
        XCTAssertEqual(first.originalRequest?.url?.path, "/a")
        XCTAssertEqual(first.currentRequest?.url?.path, "/a")
        XCTAssertNil(first.response)
        XCTAssertEqual(first.countOfBytesExpectedToReceive, -1)
    }

    func testCancellingATaskNeverResumedCompletesItOnceWithCancelled() throws {
        let manager = manager(StubTransport())
        let completion = Completion(self)
        let task = try manager.dataTask(with: URLRequest(url: base), completionHandler: completion.handler)
        task.cancel()
        task.cancel()
        task.resume()
        wait(for: [completion.expectation], timeout: 5)
        XCTAssertEqual((completion.error as? URLError)?.code, .cancelled)
        XCTAssertEqual(task.state, .completed)
        XCTAssertEqual((task.error as? URLError)?.code, .cancelled)
        XCTAssertTrue(manager.tasks.isEmpty)
        manager.completionGroup.wait()
        XCTAssertEqual(completion.calls.withLock { $0.count }, 1)
    }

    func testACompletedTaskShowsItsResponseCountsAndNoError() throws {
        let stubs = StubTransport()
        stubs.on("GET", base.appendingPathComponent("hello").absoluteString).reply(.text("hello"))
        let manager = manager(stubs)
        let completion = Completion(self)
        let task = try manager.dataTask(with: URLRequest(url: base.appendingPathComponent("hello")), completionHandler: completion.handler)
        manager.resume(task)
        wait(for: [completion.expectation], timeout: 5)
        XCTAssertEqual(completion.body, "hello")
        XCTAssertEqual(task.state, .completed)
        XCTAssertNil(task.error)
        XCTAssertEqual((task.response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(task.countOfBytesReceived, 5)
        XCTAssertEqual(task.countOfBytesExpectedToReceive, 5)
    }

    /// Something only a weak reference watches: whether a closure or interceptor holding it
    /// is still kept.
    private final class Watched: RequestInterceptor {}

    func testACompletedTaskKeptByItsCallerLetsGoOfTheCallersClosuresAndInterceptor() throws {
        let stubs = StubTransport()
        stubs.on("GET").reply(.text("hello"))
        let manager = manager(stubs)
        let completion = Completion(self)
        weak var capturedByHandler: Watched?
        weak var interceptor: Watched?
        let task: URLSessionTask = try {
            let (held, chained) = (Watched(), Watched())
            (capturedByHandler, interceptor) = (held, chained)
            let handler = completion.handler
            let task = try manager.dataTask(with: URLRequest(url: base)) { response, object, error in
                withExtendedLifetime(held) { handler(response, object, error) }
            }
            manager.setInterceptor(chained, for: task)
            return task
        }()
        task.resume()
        wait(for: [completion.expectation], timeout: 5)
        manager.completionGroup.wait()
        // The transport lets go of a finished transfer's delegate just after the task completed.
        let deadline = Date().addingTimeInterval(5)
        while (capturedByHandler != nil || interceptor != nil) && Date() < deadline { usleep(1_000) }
        XCTAssertNil(capturedByHandler)
        XCTAssertNil(interceptor)
        // What the task shows stays.
        XCTAssertEqual(task.state, .completed)
        XCTAssertEqual((task.response as? HTTPURLResponse)?.statusCode, 200)
        XCTAssertEqual(task.countOfBytesReceived, 5)
        XCTAssertEqual(task.currentRequest?.url, base)
    }

    func testARedirectMovesTheCurrentRequestAndKeepsTheOriginal() throws {
        let stubs = StubTransport()
        stubs.on("GET", base.appendingPathComponent("old").absoluteString).reply(.redirect(to: "/new"))
        stubs.on("GET", base.appendingPathComponent("new").absoluteString).reply(.text("moved"))
        let manager = manager(stubs)
        let completion = Completion(self)
        let task = try manager.dataTask(with: URLRequest(url: base.appendingPathComponent("old")), completionHandler: completion.handler)
        task.resume()
        wait(for: [completion.expectation], timeout: 5)
        XCTAssertEqual(completion.body, "moved")
        XCTAssertEqual(task.originalRequest?.url?.path, "/old")
        XCTAssertEqual(task.currentRequest?.url?.path, "/new")
        XCTAssertEqual(task.response?.url?.path, "/new")
    }

    /// A resumed task whose reply comes only after 30 s, its manager, and its completion.
    private func slowTask() throws -> (manager: URLSessionManager, task: URLSessionTask, completion: Completion) {
        let stubs = StubTransport()
        stubs.on("GET").reply(StubReply.text("late").delayed(by: 30))
        let manager = manager(stubs)
        let completion = Completion(self)
        let task = try manager.dataTask(with: URLRequest(url: base), completionHandler: completion.handler)
        task.resume()
        return (manager, task, completion)
    }

    func testCancellingARunningTaskStopsItAtOnce() throws {
        let (_, task, completion) = try slowTask()
        XCTAssertEqual(task.state, .running)
        task.cancel()
        wait(for: [completion.expectation], timeout: 5)
        XCTAssertEqual((completion.error as? URLError)?.code, .cancelled)
        XCTAssertEqual(task.state, .completed)
    }

    func testASuspendedTaskReadsNoFurtherUntilResumed() throws {
        let stubs = StubTransport()
        let body = String(repeating: "x", count: 40)
        stubs.on("GET").reply(StubReply.text(body).chunked(1, every: 0.01))
        let manager = manager(stubs)
        let completion = Completion(self)
        let started = expectation(description: "first byte")
        started.assertForOverFulfill = false
        let task = try manager.dataTask(with: URLRequest(url: base), downloadProgress: { _ in started.fulfill() },
                                        completionHandler: completion.handler)
        task.resume()
        wait(for: [started], timeout: 5)
        task.suspend()
        XCTAssertEqual(task.state, .suspended)
        Thread.sleep(forTimeInterval: 0.1)
        let whileSuspended = task.countOfBytesReceived
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(task.countOfBytesReceived, whileSuspended)
        XCTAssertLessThan(whileSuspended, 40)
        task.resume()
        wait(for: [completion.expectation], timeout: 5)
        XCTAssertEqual(completion.body, body)
    }

    /// Invalidates a manager (cancelling its tasks or not) while its task, answered with `reply`,
    /// runs; the order in which the task completed and the session was reported invalid.
    private func invalidating(during reply: StubReply, cancelingTasks: Bool) throws -> (order: [String], completion: Completion) {
        let stubs = StubTransport()
        stubs.on("GET").reply(reply)
        let manager = manager(stubs)
        let order = Locked<[String]>([])
        let invalidated = expectation(description: "invalidated")
        manager.overrides.sessionDidBecomeInvalid = { _, _ in
            order.withLock { $0.append("invalidated") }
            invalidated.fulfill()
        }
        manager.overrides.taskDidComplete = { _, _, _ in order.withLock { $0.append("completed") } }
        let completion = Completion(self)
        manager.resume(try manager.dataTask(with: URLRequest(url: base), completionHandler: completion.handler))
        manager.invalidateSession(cancelingTasks: cancelingTasks)
        wait(for: [completion.expectation, invalidated], timeout: 5)
        return (order.withLock { $0 }, completion)
    }

    func testInvalidatingWithoutCancellingLetsTheManagersOwnTasksFinishFirst() throws {
        let (order, completion) = try invalidating(during: StubReply.text("done").delayed(by: 0.3), cancelingTasks: false)
        XCTAssertEqual(completion.body, "done")
        XCTAssertEqual(order, ["completed", "invalidated"])
    }

    func testInvalidatingAndCancellingReportsTheSessionInvalidAfterItsTasksCompleted() throws {
        let (order, completion) = try invalidating(during: StubReply.text("late").delayed(by: 30), cancelingTasks: true)
        XCTAssertEqual((completion.error as? URLError)?.code, .cancelled)
        XCTAssertEqual(order, ["completed", "invalidated"])
    }

    func testCancellingATaskNeverResumedCompletesItOffTheCallersThread() throws {
        let manager = manager(StubTransport())
        let onCaller = Locked<Bool?>(nil)
        let caller = pthread_self()
        // The override block is posted to the delegate queue, apart from the completion handler:
        // waited for itself.
        let overrideRan = expectation(description: "taskDidComplete")
        manager.overrides.taskDidComplete = { _, _, _ in
            onCaller.withLock { $0 = pthread_equal(pthread_self(), caller) != 0 }
            overrideRan.fulfill()
        }
        let completion = Completion(self)
        try manager.dataTask(with: URLRequest(url: base), completionHandler: completion.handler).cancel()
        wait(for: [completion.expectation, overrideRan], timeout: 5)
        XCTAssertEqual(onCaller.withLock { $0 }, false)
    }

    func testCancellingTheTasksProgressCancelsTheTask() throws {
        let (manager, task, completion) = try slowTask()
        XCTAssertTrue(task.progress === manager.downloadProgress(for: task))
        task.progress.cancel()
        wait(for: [completion.expectation], timeout: 5)
        XCTAssertEqual((completion.error as? URLError)?.code, .cancelled)
        XCTAssertTrue(task.progress.isCancelled)
    }

    func testOverrideBlocksRunOnTheDelegateQueueInTheTasksOrder() throws {
        let stubs = StubTransport()
        stubs.on("GET").reply(.text("hello"))
        let manager = manager(stubs)
        let log = Locked<[String]>([])
        let queue = manager.operationQueue
        let record = { @Sendable (event: String) in
            log.withLock { $0.append(OperationQueue.current === queue ? event : event + " off the delegate queue") }
        }
        manager.overrides.dataTaskDidReceiveResponse = { _, _, _ in
            record("response")
            return .allow
        }
        manager.overrides.dataTaskDidReceiveData = { _, _, data in record("data \(data.count)") }
        manager.overrides.taskDidFinishCollectingMetrics = { _, _, _ in record("metrics") }
        manager.overrides.taskDidComplete = { _, _, _ in record("complete") }
        let completion = Completion(self)
        manager.resume(try manager.dataTask(with: URLRequest(url: base), completionHandler: completion.handler))
        wait(for: [completion.expectation], timeout: 5)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(log.withLock { $0 }, ["response", "data 5", "metrics", "complete"])
        XCTAssertEqual(completion.body, "hello")
    }

    func testACancelFromTheResponseBlockCancelsTheTask() throws {
        let stubs = StubTransport()
        stubs.on("GET").reply(.text("unwanted"))
        let manager = manager(stubs)
        manager.overrides.dataTaskDidReceiveResponse = { _, _, _ in .cancel }
        let completion = Completion(self)
        manager.resume(try manager.dataTask(with: URLRequest(url: base), completionHandler: completion.handler))
        wait(for: [completion.expectation], timeout: 5)
        XCTAssertEqual((completion.error as? URLError)?.code, .cancelled)
    }

    func testInvalidatingAndCancellingCancelsTheManagersOwnTasks() throws {
        let stubs = StubTransport()
        stubs.on("GET").reply(StubReply.text("late").delayed(by: 30))
        let manager = manager(stubs)
        let running = Completion(self)
        let unstarted = Completion(self)
        manager.resume(try manager.dataTask(with: URLRequest(url: base), completionHandler: running.handler))
        _ = try manager.dataTask(with: URLRequest(url: base), completionHandler: unstarted.handler)
        manager.invalidateSession(cancelingTasks: true)
        wait(for: [running.expectation, unstarted.expectation], timeout: 5)
        XCTAssertEqual((running.error as? URLError)?.code, .cancelled)
        XCTAssertEqual((unstarted.error as? URLError)?.code, .cancelled)
    }

    /// Marks the manager's processing queue, which its tasks' delivery queues target.
    private static let processingKey = DispatchSpecificKey<Bool>()

    /// Records whether it serializes on the manager's processing queue (a task's delivery queue).
    private struct QueueRecordingSerializer: URLResponseSerialization {
        let labels: Locked<[String]>

        func responseObject(for response: URLResponse?, data: Data?) throws -> Data? {
            labels.withLock { $0.append(DispatchQueue.getSpecific(key: ManagedDataTaskTests.processingKey) == true ? "delivery queue" : "caller") }
            return data
        }
    }

    func testAnAwaitedResponseIsSerializedByTheAwaitingTaskWithoutADeliveryQueueHop() async throws {
        let stubs = StubTransport()
        stubs.on("GET").reply(.text("awaited"))
        let manager = manager(stubs)
        manager.processingQueue.setSpecific(key: Self.processingKey, value: true)
        let labels = Locked<[String]>([])
        let response = try await manager.response(for: URLRequest(url: base), serializer: QueueRecordingSerializer(labels: labels))
        XCTAssertEqual(response.value.map { String(decoding: $0, as: UTF8.self) }, "awaited")
        XCTAssertEqual(labels.withLock { $0 }, ["caller"])
    }

    func testAnAwaitedResponseWithAProgressHandlerStillGetsItsProgressFirst() async throws {
        let stubs = StubTransport()
        stubs.on("GET").reply(.text("progress"))
        let manager = manager(stubs)
        manager.processingQueue.setSpecific(key: Self.processingKey, value: true)
        let progressCalls = Locked(0)
        let labels = Locked<[String]>([])
        _ = try await manager.response(for: URLRequest(url: base), serializer: QueueRecordingSerializer(labels: labels),
                                       downloadProgress: { _ in progressCalls.withLock { $0 += 1 } })
        XCTAssertGreaterThan(progressCalls.withLock { $0 }, 0)
        XCTAssertEqual(labels.withLock { $0 }, ["delivery queue"])
    }
}
