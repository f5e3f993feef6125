import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Observers of many tasks running at once, half of them retried: each task's observer hears
/// its own events, in order, and nothing of another's (also under the thread sanitizer).
final class TaskInstrumentationConcurrencyTests: XCTestCase {
    /// One task's events.
    private final class Events: TaskObserver {
        let lines = Locked<[String]>([])

        func willSend(_ request: inout URLRequest, attempt: AttemptStart) {
            lines.withLock { $0.append("send \(request.url?.path ?? "-") \(attempt.resendCount)") }
        }

        func didEnd(_ end: AttemptEnd) {
            lines.withLock { $0.append("end \(end.request.url?.path ?? "-") \(end.response?.statusCode ?? 0)") }
        }

        func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
            lines.withLock { $0.append("completed \(response?.statusCode ?? 0)") }
        }
    }

    /// Gives each task an `Events` of its own, kept by the task's path.
    private final class Tasks: TaskInstrumentation {
        let byPath = Locked<[String: Events]>([:])

        func observer(for request: URLRequest) -> (any TaskObserver)? {
            let events = Events()
            byPath.withLock { $0[request.url?.path ?? "-"] = events }
            return events
        }
    }

    func testEachOfSixtyFourConcurrentTasksHearsOnlyItsOwnEventsInOrder() async throws {
        let stubs = StubTransport()
        for index in 0..<64 {
            stubs.on("GET", "https://api.example.com/item/\(index)").replies(index % 2 == 0 ? [.text("ok")] : [.status(503), .text("ok")])
        }
        let tasks = Tasks()
        let manager = URLSessionManager(transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        manager.interceptor = RetryPolicy(budget: nil, jitter: { _ in 0 })
        manager.instrumentation = tasks
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask { _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/item/\(index)")!)) }
            }
            try await group.waitForAll()
        }
        let heard = tasks.byPath.withLock { $0 }.mapValues { $0.lines.withLock { $0 } }
        XCTAssertEqual(heard.count, 64)
        for index in 0..<64 {
            let path = "/item/\(index)"
            let expected = index % 2 == 0
                ? ["send \(path) 0", "end \(path) 200", "completed 200"]
                : ["send \(path) 0", "end \(path) 503", "send \(path) 1", "end \(path) 200", "completed 200"]
            XCTAssertEqual(heard[path], expected, path)
        }
    }
}
