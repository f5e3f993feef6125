import AFLocking
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The events a monitor hears, in order, for a task retried once.
final class EventMonitorTests: XCTestCase {
    private final class Recorder: EventMonitor {
        let queue = DispatchQueue(label: "recorder")
        let events = Locked<[String]>([])

        func taskCreated(_ task: URLSessionTask, request: URLRequest) { record("created") }
        func task(_ task: URLSessionTask, willSend request: URLRequest, attempt: Int) {
            record("send \(attempt) \(request.value(forHTTPHeaderField: "X-Attempt") ?? "-")")
        }
        func task(_ task: URLSessionTask, didReceive response: HTTPURLResponse) { record("response \(response.statusCode)") }
        func task(_ task: URLSessionTask, willRetry context: RetryContext, after delay: TimeInterval) {
            record("retry \(context.attempt) \(context.response?.statusCode ?? 0)")
        }
        func task(_ task: URLSessionTask, didCompleteWith response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
            record("completed \(response?.statusCode ?? 0) \(metrics.attemptCount)")
        }

        private func record(_ event: String) {
            dispatchPrecondition(condition: .onQueue(queue))
            events.withLock { $0.append(event) }
        }
    }

    func testAMonitorHearsEachPhaseInOrderOnItsQueue() throws {
        let recorder = Recorder()
        let manager = makeManager(interceptor: InterceptorChain([HeaderInterceptor(name: "X-Attempt") { "\($0)" }, RetryPolicy.immediate]))
        manager.eventMonitors = [recorder]
        let id = FaultServer.uniqueID()
        let completion = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try FaultServer.sequence(id, "502,200")), completionHandler: handler))
        }
        XCTAssertEqual(completion.status, 200)
        recorder.queue.sync {}
        XCTAssertEqual(recorder.events.withLock { $0 }, ["created", "send 1 1", "retry 1 502", "send 2 2", "response 200", "completed 200 2"])
    }
}
