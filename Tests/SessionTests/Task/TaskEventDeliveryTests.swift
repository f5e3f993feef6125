import AFLocking
import AFNetworkingTesting
@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Where a task's events are handled, decided from the manager's overrides, and what an
/// override that takes its time holds up: its own task, never the transport's queue.
final class TaskEventDeliveryTests: XCTestCase {
    func testATaskNoOverrideHearsOfIsHandledWhereItsEventsHappen() {
        var overrides = SessionDelegateOverrides()
        XCTAssertEqual(TaskEventDelivery(overrides: overrides, kind: .data), .inline)
        overrides.taskWillPerformHTTPRedirection = { _, _, _, request in request }
        overrides.taskDidReceiveAuthenticationChallenge = { _, _, _ in (.performDefaultHandling, nil) }
        overrides.sessionDidBecomeInvalid = { _, _ in }
        // The sending side's block runs where the transfer sends.
        overrides.taskDidSendBodyData = { _, _, _, _, _ in }
        // A download's progress block hears nothing of a data task.
        overrides.downloadTaskDidWriteData = { _, _, _, _, _ in }
        XCTAssertEqual(TaskEventDelivery(overrides: overrides, kind: .data), .inline)
    }

    func testOverridesOfTheEndOnlyMoveTheCompletionAlone() {
        let ends: [(inout SessionDelegateOverrides) -> Void] = [
            { $0.taskDidComplete = { _, _, _ in } },
            { $0.taskDidFinishCollectingMetrics = { _, _, _ in } },
            { $0.dataTaskWillCacheResponse = { _, _, response in response } },
        ]
        for set in ends {
            var overrides = SessionDelegateOverrides()
            set(&overrides)
            XCTAssertEqual(TaskEventDelivery(overrides: overrides, kind: .data), .completionOnDelegateQueue)
            XCTAssertFalse(TaskEventDelivery(overrides: overrides, kind: .data).readsThroughWindow)
        }
    }

    func testOverridesThatHearOfTheResponseOrBodyMoveEveryEvent() {
        let hearing: [(TaskDelegate.Kind, (inout SessionDelegateOverrides) -> Void)] = [
            (.data, { $0.dataTaskDidReceiveResponse = { _, _, _ in .allow } }),
            (.data, { $0.dataTaskDidReceiveData = { _, _, _ in } }),
            (.upload, { $0.dataTaskDidReceiveData = { _, _, _ in } }),
            (.download, { $0.downloadTaskDidWriteData = { _, _, _, _, _ in } }),
            (.download, { $0.downloadTaskDidResume = { _, _, _, _ in } }),
        ]
        for (kind, set) in hearing {
            var overrides = SessionDelegateOverrides()
            overrides.taskDidComplete = { _, _, _ in }
            set(&overrides)
            XCTAssertEqual(TaskEventDelivery(overrides: overrides, kind: kind), .delegateQueue)
            XCTAssertTrue(TaskEventDelivery(overrides: overrides, kind: kind).readsThroughWindow)
        }
    }

    /// A download's progress block stays in its first call (up to 2 s, until the test lets it
    /// go) while 100 other tasks of the same manager are made, answered and completed: the
    /// transport's queue hands the download's events over and does not wait for them. Were
    /// it to wait, the others would complete only after the block's 2 s.
    func testAnOverrideSlowOnOneTaskLetsTheManagersOtherTasksComplete() async throws {
        let stubs = StubTransport()
        let body = Data((0..<256 * 1024).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        stubs.on("GET", "/large").reply(.status(200, fields: ["Content-Type": "application/octet-stream"], body: body))
        stubs.on("GET", "/small").reply(.text("ok"))
        let manager = URLSessionManager(transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let (entered, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let blocking = Locked(true)
        let ended = Locked<Bool?>(nil)
        manager.overrides.downloadTaskDidWriteData = { _, _, _, _, _ in
            guard blocking.withLock({ $0 }) else { return }
            blocking.withLock { $0 = false }
            entered.signal()
            let released = release.wait(timeout: .now() + 2) == .success
            ended.withLock { $0 = released }
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.url.appendingPathComponent("large")
        let download = Task { try await manager.download(for: URLRequest(url: URL(string: "https://api.example.com/large")!), to: destination) }
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "the download's progress block was never called")

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let response = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/small")!))
                    return response.statusCode
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 100))
        XCTAssertNil(ended.withLock { $0 }, "the other tasks completed only once the slow block had returned")

        release.signal()
        _ = try await download.value
        XCTAssertEqual(ended.withLock { $0 }, true)
        XCTAssertEqual(try Data(contentsOf: destination), body)
    }

    /// A manager on a `TestServer`, its responses' bodies kept as data.
    private func manager(answering reply: @escaping @Sendable (RecordedRequest) -> ServerReply) throws -> (URLSessionManager, URL) {
        let server = try TestServer(handler: reply)
        addTeardownBlock { server.stop() }
        let manager = URLSessionManager()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return (manager, server.baseURL)
    }

    func testEachTasksEventsStayInOrderOnAWiderDelegateQueue() async throws {
        let body = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let (manager, base) = try manager { _ in .status(200, fields: ["Content-Type": "application/octet-stream"], body: body) }
        manager.operationQueue.maxConcurrentOperationCount = 4
        manager.overrides.dataTaskDidReceiveData = { _, _, _ in }
        for _ in 0..<10 {
            let response = try await manager.data(for: URLRequest(url: base.appendingPathComponent("body")))
            XCTAssertTrue(response.value == body, "a body's chunks were taken out of order, or after the end")
        }
    }

    func testTheSendingSidesOverridesRunInTheOrderTheRequestGoesOut() async throws {
        let (manager, base) = try manager { request in request.path == "/old" ? .status(307, fields: ["Location": "/new"]) : .text("ok") }
        let events = Locked<[String]>([])
        manager.overrides.taskDidSendBodyData = { _, _, _, total, _ in
            Thread.sleep(forTimeInterval: 0.05)
            events.withLock { $0.append("sent \(total)") }
        }
        manager.overrides.taskWillPerformHTTPRedirection = { _, _, _, request in
            events.withLock { $0.append("redirect") }
            return request
        }
        var request = URLRequest(url: base.appendingPathComponent("old"))
        request.httpMethod = "POST"
        request.httpBody = Data(repeating: 0x63, count: 1000)
        _ = try await manager.data(for: request)
        // The body goes out once before the redirect is decided (the 307's hop counts no more
        // than the most sent).
        XCTAssertEqual(events.withLock { $0 }, ["sent 1000", "redirect"])
    }

    func testNoBodyReachesTheTaskAfterItsResponseOverrideCancelled() async throws {
        let (manager, base) = try manager { _ in .status(200, fields: ["Content-Type": "application/octet-stream"], body: Data(count: 8 << 20)) }
        let reported = Locked(0)
        manager.overrides.dataTaskDidReceiveResponse = { _, _, _ in
            // A slow decision, while the transport reads on into the window.
            Thread.sleep(forTimeInterval: 0.2)
            return .cancel
        }
        manager.overrides.dataTaskDidReceiveData = { _, _, data in reported.withLock { $0 += data.count } }
        do {
            _ = try await manager.data(for: URLRequest(url: base.appendingPathComponent("large")))
            XCTFail("the task was not cancelled")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .cancelled)
        }
        XCTAssertEqual(reported.withLock { $0 }, 0)
    }
}
