import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

extension HTTPTransport {
    /// The transport the session tests run on: `.libcurl`, or `.urlSession` when the
    /// environment sets `AFN_TEST_TRANSPORT=urlSession` (`scripts/test.sh` runs them both ways).
    static let underTest: HTTPTransport = ProcessInfo.processInfo.environment["AFN_TEST_TRANSPORT"] == "urlSession" ? .urlSession : .libcurl
}

extension XCTestCase {
    /// A `URLSessionManager`, invalidated when the test ends.
    func makeManager() -> URLSessionManager {
        let manager = URLSessionManager(transport: .underTest)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// A `URLSessionManager` with `interceptor` that hands back every body as data, error
    /// statuses included (retried sequences answer 5xx), invalidated when the test ends.
    func makeManager(interceptor: any RequestInterceptor) -> URLSessionManager {
        let manager = makeManager()
        manager.responseSerializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        manager.interceptor = interceptor
        return manager
    }
}

extension RetryPolicy {
    /// The default policy retrying at once, without a budget: tests count attempts, not waits.
    static let immediate = RetryPolicy(budget: nil, jitter: { _ in 0 })
}

/// Success and failure of one `HTTPSessionManager` call.
final class CallRecorder: @unchecked Sendable {
    // @unchecked: the fields are written by one handler before `expectation` is fulfilled and
    // read only after waiting on it.
    let expectation = XCTestExpectation(description: "call")
    private(set) var task: URLSessionTask?
    private(set) var object: (any Sendable)?
    private(set) var error: (any Error)?
    private(set) var succeeded = false

    init() { expectation.assertForOverFulfill = true }

    var success: HTTPSessionManager.Success {
        { [self] task, object in
            self.task = task
            self.object = object
            succeeded = true
            expectation.fulfill()
        }
    }

    var failure: HTTPSessionManager.Failure {
        { [self] task, error in
            self.task = task
            self.error = error
            expectation.fulfill()
        }
    }

    var json: [String: Any]? { object as? [String: Any] }
}
