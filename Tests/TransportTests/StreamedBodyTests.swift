import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// A request body stream whose source blocks never holds up the transport: other transfers go
/// on, timeouts fire, and a cancelled task frees the transport (libcurl transport).
final class StreamedBodyTests: XCTestCase {
    private func manager() -> URLSessionManager {
        let manager = URLSessionManager(transport: .libcurl)
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// A POST whose body never comes, started on `manager`: its task, the expectation of its end,
    /// the error it ended with, and its stream (released when the test ends, freeing the reader).
    private struct Stall {
        let task: URLSessionTask
        let done: XCTestExpectation
        let error: Locked<(any Error)?>
    }

    private func stalledUpload(_ manager: URLSessionManager, timeout: TimeInterval) throws -> Stall {
        let stream = StalledInputStream()
        addTeardownBlock { stream.release() }
        var request = URLRequest(url: try HTTPBin.url("/post"))
        request.httpMethod = "POST"
        request.httpBodyStream = stream
        request.timeoutInterval = timeout
        let done = expectation(description: "stalled upload")
        let error = Locked<(any Error)?>(nil)
        let task = try manager.uploadTask(withStreamedRequest: request) { _, _, failure in
            error.withLock { $0 = failure }
            done.fulfill()
        }
        manager.resume(task)
        return Stall(task: task, done: done, error: error)
    }

    private func quickGET(_ manager: URLSessionManager) throws -> TimeInterval {
        var request = URLRequest(url: try HTTPBin.url("/bytes/16"))
        request.timeoutInterval = 2
        let done = expectation(description: "GET")
        let failure = Locked<(any Error)?>(nil)
        let started = Date()
        manager.resume(try manager.dataTask(with: request) { _, _, error in
            failure.withLock { $0 = error }
            done.fulfill()
        })
        wait(for: [done], timeout: 10)
        XCTAssertNil(failure.withLock { $0 })
        return Date().timeIntervalSince(started)
    }

    func testAStalledBodyDoesNotHoldUpAnotherTransfer() throws {
        let manager = manager()
        let stall = try stalledUpload(manager, timeout: 30)
        usleep(300_000)
        XCTAssertLessThan(try quickGET(manager), 1)
        stall.task.cancel()
        wait(for: [stall.done], timeout: 5)
    }

    func testTheIdleTimeoutFiresWhileTheBodyStalls() throws {
        let started = Date()
        let stall = try stalledUpload(manager(), timeout: 1)
        wait(for: [stall.done], timeout: 5)
        XCTAssertEqual((stall.error.withLock { $0 } as? URLError)?.code, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func testACancelledTaskWithAStalledBodyFreesTheTransport() throws {
        let manager = manager()
        let stall = try stalledUpload(manager, timeout: 30)
        usleep(300_000)
        stall.task.cancel()
        wait(for: [stall.done], timeout: 5)
        XCTAssertEqual((stall.error.withLock { $0 } as? URLError)?.code, .cancelled)
        XCTAssertLessThan(try quickGET(manager), 1)
    }
}
