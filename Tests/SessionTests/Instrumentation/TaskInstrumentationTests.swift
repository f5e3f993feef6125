import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What a `TaskInstrumentation`'s observer hears of a task, and what it changes, on a stub
/// transport.
final class TaskInstrumentationTests: XCTestCase {
    /// Records every event of its tasks as a line, and sends each request's resend count in
    /// `X-Resend`.
    private final class Recorder: TaskInstrumentation, TaskObserver {
        @TaskLocal static var caller: String?

        let events = Locked<[String]>([])
        let header: String

        init(header: String = "X-Resend") {
            self.header = header
        }

        func observer(for request: URLRequest) -> (any TaskObserver)? {
            events.withLock { $0.append("made \(request.url?.path ?? "-") by \(Self.caller ?? "nobody")") }
            return self
        }

        func willSend(_ request: inout URLRequest, attempt: AttemptStart) {
            let previous = request.value(forHTTPHeaderField: header) ?? "-"
            events.withLock {
                $0.append("send \(request.url?.path ?? "-") \(attempt.resendCount) \(attempt.retryAttempt) \(attempt.followsRedirect) \(previous)")
            }
            request.setValue("\(attempt.resendCount)", forHTTPHeaderField: header)
        }

        func didEnd(_ end: AttemptEnd) {
            events.withLock {
                $0.append("end \(end.request.url?.path ?? "-") \(end.response?.statusCode ?? 0) \(end.errorType ?? "-") \(end.next)")
            }
        }

        func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
            events.withLock { $0.append("completed \(response?.statusCode ?? 0) \(metrics.attemptCount)") }
        }
    }

    private let stubs = StubTransport()

    private func manager(_ instrumentation: any TaskInstrumentation) -> URLSessionManager {
        let manager = URLSessionManager(transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        manager.instrumentation = instrumentation
        return manager
    }

    func testTheObserverHearsEachRequestSentEachAttemptsEndAndTheCompletionInOrder() async throws {
        stubs.on("GET", "https://api.example.com/old").reply(.redirect(to: "https://api.example.com/new"))
        stubs.on("GET", "https://api.example.com/new").replies([.status(503), .text("ok")])
        let recorder = Recorder()
        let manager = manager(recorder)
        manager.interceptor = RetryPolicy.immediate
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/old")!))
        XCTAssertEqual(recorder.events.withLock { $0 }, [
            "made /old by nobody",
            "send /old 0 1 false -", "end /old 302 - redirect",
            "send /new 1 1 true 0", "end /new 503 503 retry(after: 0.0)",
            "send /old 2 2 false -", "end /old 302 - redirect",
            "send /new 3 2 true 2", "end /new 200 - completion",
            "completed 200 2",
        ])
    }

    func testAnOverrideOnTheDelegateQueueLeavesEachAttemptItsOwnEnd() async throws {
        /// Records each attempt's end with the bytes of its response's body.
        final class Ends: TaskInstrumentation, TaskObserver {
            let ends = Locked<[String]>([])
            func observer(for request: URLRequest) -> (any TaskObserver)? { self }
            func willSend(_ request: inout URLRequest, attempt: AttemptStart) {}
            func didEnd(_ end: AttemptEnd) {
                ends.withLock { $0.append("\(end.request.url?.path ?? "-") \(end.response?.statusCode ?? 0) \(end.responseBodyBytes)") }
            }
            func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {}
        }
        // A server's, whose hops count the bytes of their bodies (a stub's count none).
        let server = try TestServer { request in
            request.path == "/old" ? .status(302, fields: ["Location": "/new"], body: Data(count: 100)) : .text("hello")
        }
        addTeardownBlock { server.stop() }
        for overridden in [false, true] {
            let ends = Ends()
            let manager = URLSessionManager()
            addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
            manager.instrumentation = ends
            // The task's events then wait on the delegate queue; its attempts still end in order.
            if overridden { manager.overrides.dataTaskDidReceiveResponse = { _, _, _ in .allow } }
            _ = try await manager.data(for: URLRequest(url: server.baseURL.appendingPathComponent("old")))
            XCTAssertEqual(ends.ends.withLock { $0 }, ["/old 302 100", "/new 200 5"], overridden ? "with an override" : "without")
        }
    }

    func testAHeaderSetBeforeARequestIsSentReachesTheServer() async throws {
        stubs.on("GET", "https://api.example.com/new").replies([.status(503), .text("ok")])
        let manager = manager(Recorder())
        manager.interceptor = RetryPolicy.immediate
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/new")!))
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "X-Resend") }, ["0", "1"])
    }

    func testTheObserverIsAskedForOnTheCallersSwiftTask() async throws {
        stubs.on("GET", "https://api.example.com/a").reply(.text("a"))
        let recorder = Recorder()
        let manager = manager(recorder)
        try await Recorder.$caller.withValue("the caller") {
            _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/a")!))
        }
        XCTAssertEqual(recorder.events.withLock { $0.first }, "made /a by the caller")
    }

    func testAFailedAttemptEndsWithItsErrorBeforeTheCompletion() async throws {
        stubs.on("GET", "https://api.example.com/down").reply(.failure(.cannotConnectToHost))
        let recorder = Recorder()
        let manager = manager(recorder)
        _ = try? await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/down")!))
        XCTAssertEqual(recorder.events.withLock { Array($0.suffix(2)) }, [
            "end /down 0 URLError.cannotConnectToHost completion", "completed 0 1",
        ])
    }

    func testAListsObserversHearEachEventInOrderAndEachSeesTheHeadersOfThoseBefore() async throws {
        stubs.on("GET", "https://api.example.com/a").reply(.text("a"))
        let first = Recorder(header: "X-Shared")
        let second = Recorder(header: "X-Shared")
        let manager = manager(InstrumentationList([first, second]))
        _ = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/a")!))
        XCTAssertEqual(first.events.withLock { $0[1] }, "send /a 0 1 false -")
        XCTAssertEqual(second.events.withLock { $0[1] }, "send /a 0 1 false 0")
        XCTAssertEqual(second.events.withLock { $0.count }, 4)
    }

    func testOnURLSessionsOwnProtocolATaskIsOneAttemptWhoseHeadersReachTheServer() async throws {
        let server = try TestServer { _ in .text("hello") }
        addTeardownBlock { server.stop() }
        let recorder = Recorder()
        let manager = URLSessionManager(transport: .urlSession)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        manager.instrumentation = recorder
        _ = try await manager.data(for: URLRequest(url: server.baseURL.appendingPathComponent("a")))
        XCTAssertEqual(recorder.events.withLock { $0 }, ["made /a by nobody", "send /a 0 1 false -", "end /a 200 - completion", "completed 200 1"])
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "X-Resend") }, ["0"])
    }

    func testAListWhoseInstrumentationsAllDeclineHasNoObserver() {
        struct Declining: TaskInstrumentation {
            func observer(for request: URLRequest) -> (any TaskObserver)? { nil }
        }
        XCTAssertNil(InstrumentationList([Declining(), Declining()]).observer(for: URLRequest(url: URL(string: "https://api.example.com")!)))
    }
}
