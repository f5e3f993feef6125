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

    /// Starts a POST whose body never comes; returns the task and an expectation of its end.
    private func stalledUpload(_ manager: URLSessionManager, stream: StalledInputStream, timeout: TimeInterval,
                               error: Locked<(any Error)?>) throws -> (URLSessionTask, XCTestExpectation) {
        var request = URLRequest(url: try HTTPBin.url("/post"))
        request.httpMethod = "POST"
        request.httpBodyStream = stream
        request.timeoutInterval = timeout
        let done = expectation(description: "stalled upload")
        let task = try manager.uploadTask(withStreamedRequest: request) { _, _, failure in
            error.withLock { $0 = failure }
            done.fulfill()
        }
        manager.resume(task)
        return (task, done)
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
        let stream = StalledInputStream()
        defer { stream.release() }
        let error = Locked<(any Error)?>(nil)
        let (task, done) = try stalledUpload(manager, stream: stream, timeout: 30, error: error)
        usleep(300_000)
        XCTAssertLessThan(try quickGET(manager), 1)
        task.cancel()
        wait(for: [done], timeout: 5)
    }

    func testTheIdleTimeoutFiresWhileTheBodyStalls() throws {
        let stream = StalledInputStream()
        defer { stream.release() }
        let error = Locked<(any Error)?>(nil)
        let started = Date()
        let (_, done) = try stalledUpload(manager(), stream: stream, timeout: 1, error: error)
        wait(for: [done], timeout: 5)
        XCTAssertEqual((error.withLock { $0 } as? URLError)?.code, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func testACancelledTaskWithAStalledBodyFreesTheTransport() throws {
        let manager = manager()
        let stream = StalledInputStream()
        defer { stream.release() }
        let error = Locked<(any Error)?>(nil)
        let (task, done) = try stalledUpload(manager, stream: stream, timeout: 30, error: error)
        usleep(300_000)
        task.cancel()
        wait(for: [done], timeout: 5)
        XCTAssertEqual((error.withLock { $0 } as? URLError)?.code, .cancelled)
        XCTAssertLessThan(try quickGET(manager), 1)
    }
}
