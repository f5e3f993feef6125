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

    func testASuspendAndAResumeAtOnceThenAResumeLeaveNoTaskStuckWithItsTransferSuspended() throws {
        // The replies come when the clock advances, after every pair ran: a transfer left
        // suspended under a task that shows `.running` never reads its body, and no later
        // `resume()` reaches it. Many tasks, as a pair's actions cross rarely; in rounds of a
        // few, as an advance goes over every pending timer for each timer it runs.
        let clock = TestClock()
        let stubs = StubTransport(clock: clock)
        stubs.on("GET").reply(StubReply.text("ok").delayed(by: 1))
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        // As many rounds as two seconds hold (fewer under the thread sanitizer), up to 20.
        let end = Date(timeIntervalSinceNow: 2)
        var round = 0
        repeat {
            let faults = try raceSuspendAndResume(tasks: 250, round: round, on: manager, clock: clock)
            XCTAssertEqual(faults, [], "round \(round)")
            if !faults.isEmpty { break }
            round += 1
        } while round < 20 && Date() < end
    }

    /// Makes and resumes `count` tasks on `manager`, whose replies come when `clock` advances by
    /// a second; has two threads call `suspend()` and `resume()` on each at once (the resume as
    /// soon as the suspend shows); resumes each again, advances the clock and waits up to 5
    /// seconds. Returns what went wrong: the tasks that never completed (and what they show),
    /// and those that completed other than once with success.
    private func raceSuspendAndResume(tasks count: Int, round: Int, on manager: URLSessionManager, clock: TestClock) throws -> [String] {
        let outcomes = Locked<[Int: [String]]>([:])
        let done = DispatchGroup()
        let tasks = try (0..<count).map { index in
            done.enter()
            let url = URL(string: "https://api.example.com/rounds/\(round)/items/\(index)")!
            return try manager.dataTask(with: URLRequest(url: url)) { _, _, error in
                let first = outcomes.withLock { outcomes in
                    outcomes[index, default: []].append(error.map { "\($0)" } ?? "ok")
                    return outcomes[index]?.count == 1
                }
                if first { done.leave() }
            }
        }
        tasks.forEach { $0.resume() }
        // The two threads meet before each task, so that its suspend and resume come together.
        let meeting = ThreadMeeting()
        let paired = DispatchGroup()
        for thread in 0..<2 {
            paired.enter()
            Thread {
                for (index, task) in tasks.enumerated() {
                    meeting.meet(index + 1, as: thread)
                    guard thread == 1 else {
                        task.suspend()
                        continue
                    }
                    var spins = 0
                    while task.state == .running {
                        spins += 1
                        if spins > 1000 { sched_yield() }
                    }
                    task.resume()
                }
                paired.leave()
            }.start()
        }
        paired.wait()
        tasks.forEach { $0.resume() }
        clock.advance(by: 1)
        _ = done.wait(timeout: .now() + 5)
        let stuck = tasks.indices.filter { tasks[$0].state != .completed }.map { "#\($0) never completed, showing state \(tasks[$0].state.rawValue)" }
        let wrong = outcomes.withLock { $0 }.filter { $0.value != ["ok"] }.map { "#\($0.key) completed \($0.value)" }
        return stuck + wrong.sorted()
    }
}
