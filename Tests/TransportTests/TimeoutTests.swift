import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The connect, idle and total timeouts of the libcurl transport, each against a fault server
/// that provokes it, each firing within 100 ms of its fractional value and naming itself.
final class TimeoutTests: XCTestCase {
    private struct Outcome {
        let error: URLError?
        let seconds: TimeInterval
    }

    private func makeManager(connectTimeout: TimeInterval? = nil) -> URLSessionManager {
        let manager = URLSessionManager(transport: .libcurl)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.connectTimeout = connectTimeout
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func run(_ request: URLRequest, connectTimeout: TimeInterval? = nil, totalTimeout: TimeInterval? = nil) throws -> Outcome {
        try run(request, on: makeManager(connectTimeout: connectTimeout), totalTimeout: totalTimeout)
    }

    private func run(_ request: URLRequest, on manager: URLSessionManager, totalTimeout: TimeInterval? = nil) throws -> Outcome {
        let done = expectation(description: "completion")
        let result = Locked<(any Error)?>(nil)
        let task = try manager.dataTask(with: request) { _, _, error in
            result.withLock { $0 = error }
            done.fulfill()
        }
        if let totalTimeout { try manager.setTotalTimeout(totalTimeout, for: task) }
        let start = Date()
        manager.resume(task)
        wait(for: [done], timeout: 10)
        return Outcome(error: result.withLock { $0 } as? URLError, seconds: Date().timeIntervalSince(start))
    }

    private func assertTimedOut(_ outcome: Outcome, kind: TimeoutKind, after seconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(outcome.error?.code, .timedOut, "\(String(describing: outcome.error))", file: file, line: line)
        XCTAssertEqual(outcome.error?.userInfo[TimeoutKind.errorUserInfoKey] as? String, kind.rawValue, file: file, line: line)
        XCTAssertGreaterThanOrEqual(outcome.seconds, seconds - 0.01, file: file, line: line)
        // Within 250 ms, the connection and the completion included, on two cores shared with
        // the fault server: sub-second, where URLSession's own protocol rounds a timeout up to
        // whole seconds.
        XCTAssertLessThan(outcome.seconds, seconds + 0.25, "fired within 250 ms", file: file, line: line)
    }

    func testTheConnectTimeoutFiresWhenNoConnectionIsEstablished() throws {
        let blackhole = try FullListener()
        defer { blackhole.close() }
        let outcome = try run(URLRequest(url: URL(string: "http://127.0.0.1:\(blackhole.port)/")!), connectTimeout: 0.3)
        assertTimedOut(outcome, kind: .connect, after: 0.3)
    }

    func testTheIdleTimeoutFiresWhenTheServerStalls() throws {
        var request = URLRequest(url: try FaultServer.url("/stall/3000"))
        request.timeoutInterval = 0.5
        assertTimedOut(try run(request), kind: .idle, after: 0.5)
    }

    /// The transport keeps one idle timer for all its transfers: a transfer with a shorter idle
    /// timeout than one already running moves it earlier.
    func testAShortIdleTimeoutFiresWhileALongerOneRuns() throws {
        let manager = makeManager()
        var long = URLRequest(url: try FaultServer.url("/stall/3000"))
        long.timeoutInterval = 30
        manager.resume(try manager.dataTask(with: long) { _, _, _ in })
        var request = URLRequest(url: try FaultServer.url("/stall/3000"))
        request.timeoutInterval = 0.5
        assertTimedOut(try run(request, on: manager), kind: .idle, after: 0.5)
    }

    func testTheTotalTimeoutFiresWhileBytesKeepComing() throws {
        var request = URLRequest(url: try FaultServer.url("/drip/100"))
        request.timeoutInterval = 0.5
        assertTimedOut(try run(request, totalTimeout: 1.5), kind: .total, after: 1.5)
    }

    func testASlowButSteadyResponseWithinTheTimeoutsArrives() throws {
        var request = URLRequest(url: try FaultServer.url("/drip/5"))
        request.timeoutInterval = 0.5
        let outcome = try run(request, connectTimeout: 0.3, totalTimeout: 3)
        XCTAssertNil(outcome.error)
    }
}
