import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// URLSession on Linux never reports task metrics; the manager measures them. Against the
/// in-process `TestServer`.
final class TaskMetricsTests: XCTestCase {
    /// Runs `request` and returns the metrics from the override and from the notification.
    private func metrics(for request: URLRequest) throws -> (fromOverride: TaskMetrics?, fromNotification: TaskMetrics?) {
        let manager = makeManager()
        let fromOverride = Locked<TaskMetrics?>(nil)
        var overrides = SessionDelegateOverrides()
        overrides.taskDidFinishCollectingMetrics = { _, _, metrics in fromOverride.withLock { $0 = metrics } }
        manager.overrides = overrides
        let completed = NotificationLog(.taskDidComplete)
        var task: URLSessionTask?
        let result = try complete { handler in
            task = try manager.dataTask(with: request, completionHandler: handler)
            manager.resume(task!)
        }
        manager.completionGroup.wait()
        XCTAssertNil(result.error)
        return (fromOverride.withLock { $0 }, completed.posted(for: task!).first?.userInfo?[SessionNotificationKey.metrics] as? TaskMetrics)
    }

    func testMetricsCountBodyBytesBothWaysAndOrderTheTimes() throws {
        // As httpbin's /anything: the body comes back (base64, in a JSON object).
        let server = try makeServer { request in .jsonObject(["data": request.body.base64EncodedString()]) }
        var request = URLRequest(url: server.url("/anything"))
        request.httpMethod = "POST"
        request.httpBody = Data(count: 1500)
        let (fromOverride, fromNotification) = try metrics(for: request)
        let metrics = try XCTUnwrap(fromOverride)
        XCTAssertEqual(fromNotification, metrics)
        XCTAssertEqual(metrics.countOfRequestBodyBytesSent, 1500)
        XCTAssertEqual(server.requests.first?.body.count, 1500)
        XCTAssertEqual(metrics.countOfResponseBodyBytesReceived, 2011, "the echo holds the body: {\"data\":\"<2000 bytes of base64>\"}")
        XCTAssertEqual(metrics.redirectCount, 0)
        let responseStart = try XCTUnwrap(metrics.responseStart)
        XCTAssertLessThanOrEqual(metrics.taskStart, responseStart)
        XCTAssertLessThanOrEqual(responseStart, metrics.taskEnd)
        XCTAssertGreaterThan(metrics.duration, 0)
    }

    func testMetricsCountRedirects() throws {
        // As httpbin's /redirect/2: two redirects, then /get.
        let server = try makeServer { request in
            switch request.path {
            case "/redirect/2": .redirect(to: "/redirect/1")
            case "/redirect/1": .redirect(to: "/get")
            default: .emptyJSON
            }
        }
        let (fromOverride, fromNotification) = try metrics(for: URLRequest(url: server.url("/redirect/2")))
        XCTAssertEqual(fromOverride?.redirectCount, 2)
        XCTAssertEqual(fromNotification?.redirectCount, 2)
        XCTAssertEqual(server.requests.map(\.path), ["/redirect/2", "/redirect/1", "/get"])
    }

    func testFailedTaskStillHasMetrics() throws {
        let manager = makeManager()
        let fromOverride = Locked<TaskMetrics?>(nil)
        var overrides = SessionDelegateOverrides()
        overrides.taskDidFinishCollectingMetrics = { _, _, metrics in fromOverride.withLock { $0 = metrics } }
        manager.overrides = overrides
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: URL(string: "http://127.0.0.1:9/")!), completionHandler: handler))
        }
        XCTAssertNotNil(result.error)
        let metrics = try XCTUnwrap(fromOverride.withLock { $0 })
        XCTAssertNil(metrics.responseStart)
        XCTAssertEqual(metrics.countOfResponseBodyBytesReceived, 0)
    }

    func testTheMetricsOverrideRunsBeforeTheCompletionHandler() throws {
        let manager = makeManager()
        let reported = Locked<Set<Int>>([])
        var overrides = SessionDelegateOverrides()
        overrides.taskDidFinishCollectingMetrics = { _, task, _ in _ = reported.withLock { $0.insert(task.taskIdentifier) } }
        manager.overrides = overrides
        let server = try makeServer()
        let url = server.url("/get")
        let done = expectation(description: "completions")
        done.expectedFulfillmentCount = 20
        let missing = Locked(0)
        for _ in 0..<20 {
            let task = Locked<URLSessionTask?>(nil)
            task.withLock { $0 = try? manager.dataTask(with: URLRequest(url: url)) { _, _, _ in
                if let identifier = task.withLock({ $0?.taskIdentifier }), !reported.withLock({ $0.contains(identifier) }) {
                    missing.withLock { $0 += 1 }
                }
                done.fulfill()
            } }
            task.withLock { $0 }.map(manager.resume)
        }
        wait(for: [done], timeout: 20)
        XCTAssertEqual(missing.withLock { $0 }, 0, "completion handlers that ran before their task's metrics were reported")
    }
}
