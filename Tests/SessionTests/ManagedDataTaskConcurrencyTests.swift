import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The manager's own tasks resumed, suspended and cancelled from several threads at once (also
/// run under the thread sanitizer): each sends its request at most once and completes exactly once.
final class ManagedDataTaskConcurrencyTests: XCTestCase {
    func testConcurrentResumeSuspendAndCancelSendEachRequestOnceAndCompleteEachTaskOnce() throws {
        let stubs = StubTransport()
        stubs.on("GET").reply(.text("ok"))
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let count = 300
        let completions = Locked<[Int: Int]>([:])
        let done = DispatchGroup()
        let tasks = try (0..<count).map { index in
            done.enter()
            var request = URLRequest(url: URL(string: "https://api.example.com/items/\(index)")!)
            request.setValue("\(index)", forHTTPHeaderField: "X-Index")
            return try manager.dataTask(with: request) { _, _, _ in
                completions.withLock { $0[index, default: 0] += 1 }
                done.leave()
            }
        }
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let task = tasks[index]
            DispatchQueue.concurrentPerform(iterations: 3) { thread in
                switch thread {
                case 0: task.resume()
                case 1:
                    task.resume()
                    task.suspend()
                    task.resume()
                default:
                    if index % 5 == 0 { task.cancel() } else { task.resume() }
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(completions.withLock { $0 }.count, count)
        XCTAssertEqual(Set(completions.withLock { $0 }.values), [1])
        let sent = stubs.requests.compactMap { $0.value(forHeader: "X-Index") }
        XCTAssertEqual(sent.count, Set(sent).count, "a request sent twice")
        XCTAssertTrue(manager.tasks.isEmpty)
    }
}
