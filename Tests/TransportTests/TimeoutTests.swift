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

/// The connect, idle and total timeouts of the libcurl transport, each against a server that
/// provokes it, each firing within 100 ms of its fractional value and naming itself.
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

    /// A request to an in-process server answering every request with `reply`, stopped when the
    /// test ends.
    private func request(answeredWith reply: ServerReply, timeout: TimeInterval) throws -> URLRequest {
        let server = try TestServer { _ in reply }
        addTeardownBlock { server.stop() }
        var request = URLRequest(url: server.baseURL)
        request.timeoutInterval = timeout
        return request
    }

    /// Two body bytes, the second 3 s after the first.
    private let stall = ServerReply.status(200, body: Data("ab".utf8)).dripped(1, every: 3)

    /// `count` body bytes (declared), one every 100 ms.
    private func drip(_ count: Int) -> ServerReply {
        .status(200, body: Data(repeating: UInt8(ascii: "d"), count: count)).dripped(1, every: 0.1)
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
        // the server: sub-second, where URLSession's own protocol rounds a timeout up to
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
        assertTimedOut(try run(try request(answeredWith: stall, timeout: 0.5)), kind: .idle, after: 0.5)
    }

    /// The transport keeps one idle timer for all its transfers: a transfer with a shorter idle
    /// timeout than one already running moves it earlier.
    func testAShortIdleTimeoutFiresWhileALongerOneRuns() throws {
        let manager = makeManager()
        manager.resume(try manager.dataTask(with: try request(answeredWith: stall, timeout: 30)) { _, _, _ in })
        assertTimedOut(try run(try request(answeredWith: stall, timeout: 0.5), on: manager), kind: .idle, after: 0.5)
    }

    func testTheTotalTimeoutFiresWhileBytesKeepComing() throws {
        assertTimedOut(try run(try request(answeredWith: drip(100), timeout: 0.5), totalTimeout: 1.5), kind: .total, after: 1.5)
    }

    func testASlowButSteadyResponseWithinTheTimeoutsArrives() throws {
        let outcome = try run(try request(answeredWith: drip(5), timeout: 0.5), connectTimeout: 0.3, totalTimeout: 3)
        XCTAssertNil(outcome.error)
    }
}
