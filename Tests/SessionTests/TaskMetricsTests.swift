import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// URLSession on Linux never reports task metrics; the manager measures them.
final class TaskMetricsTests: XCTestCase {
    func testMetricsReportTimesBytesAndRedirectsThroughTheOverrideAndTheNotification() throws {
        let manager = makeManager()
        let fromOverride = Locked<TaskMetrics?>(nil)
        var overrides = SessionDelegateOverrides()
        overrides.taskDidFinishCollectingMetrics = { _, _, metrics in fromOverride.withLock { $0 = metrics } }
        manager.overrides = overrides
        let completed = NotificationLog(.taskDidComplete)
        var request = URLRequest(url: try HTTPBin.url("/redirect-to?url=/redirect/1&status_code=302"))
        request.httpMethod = "POST"
        request.httpBody = Data(count: 1500)
        var task: URLSessionTask?
        let result = try complete { handler in
            task = try manager.dataTask(with: request, completionHandler: handler)
            manager.resume(task!)
        }
        manager.completionGroup.wait()
        XCTAssertNil(result.error)
        let metrics = try XCTUnwrap(fromOverride.withLock { $0 })
        XCTAssertEqual(metrics.redirectCount, 2)
        XCTAssertGreaterThanOrEqual(metrics.countOfRequestBodyBytesSent, 1500)
        XCTAssertGreaterThan(metrics.countOfResponseBodyBytesReceived, 100)
        let responseStart = try XCTUnwrap(metrics.responseStart)
        XCTAssertLessThanOrEqual(metrics.taskStart, responseStart)
        XCTAssertLessThanOrEqual(responseStart, metrics.taskEnd)
        XCTAssertGreaterThan(metrics.duration, 0)
        XCTAssertEqual(completed.posted(for: task!).first?.userInfo?[SessionNotificationKey.metrics] as? TaskMetrics, metrics)
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
}
