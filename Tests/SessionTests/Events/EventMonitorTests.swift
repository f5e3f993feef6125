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

/// The events a monitor hears, in order, for a task retried once (on a stub transport).
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
        let stubs = StubTransport()
        stubs.on("GET", "/v1/report").replies([.status(502), .text("ready")])
        let manager = URLSessionManager(transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        manager.interceptor = InterceptorChain([HeaderInterceptor(name: "X-Attempt") { "\($0)" }, RetryPolicy.immediate])
        manager.eventMonitors = [recorder]
        let completion = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: URL(string: "https://api.example.com/v1/report")!), completionHandler: handler))
        }
        XCTAssertEqual(completion.status, 200)
        recorder.queue.sync {}
        XCTAssertEqual(recorder.events.withLock { $0 }, ["created", "send 1 1", "retry 1 502", "send 2 2", "response 200", "completed 200 2"])
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "X-Attempt") }, ["1", "2"])
    }
}
