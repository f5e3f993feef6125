import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What a task's completion handler received.
struct Completion: @unchecked Sendable {
    // @unchecked: written once by the completion handler before `done` is signalled, read
    // only after waiting on it.
    var response: HTTPURLResponse?
    var object: (any Sendable)?
    var error: (any Error)?

    var json: [String: Any]? { object as? [String: Any] }
    var status: Int? { response?.statusCode }
}

/// Collects completions and counts how often each handler ran.
final class CompletionRecorder: @unchecked Sendable {
    // @unchecked: `results` and `calls` are only touched under `lock`.
    private let lock = NSLock()
    private var results: [Completion] = []
    private var calls = 0
    let expectation: XCTestExpectation

    init(_ description: String = "completion", count: Int = 1) {
        expectation = XCTestExpectation(description: description)
        expectation.expectedFulfillmentCount = count
        expectation.assertForOverFulfill = true
    }

    var handler: URLSessionManager.CompletionHandler {
        { [self] response, object, error in
            lock.lock()
            results.append(Completion(response: response as? HTTPURLResponse, object: object, error: error))
            calls += 1
            lock.unlock()
            expectation.fulfill()
        }
    }

    var completions: [Completion] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }

    var first: Completion { completions.first ?? Completion() }
}

extension XCTestCase {
    /// Runs `make` (which creates and resumes tasks with the recorder's handler) and waits.
    func complete(
        timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
        _ make: (@escaping URLSessionManager.CompletionHandler) throws -> Void
    ) throws -> Completion {
        let recorder = CompletionRecorder()
        try make(recorder.handler)
        wait(for: [recorder.expectation], timeout: timeout)
        return recorder.first
    }
}
