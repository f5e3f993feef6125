import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `URLSessionManager.stream(for:)` on the libcurl transport against the loopback test server:
/// the head before the body, the body in order as it arrives, validation before any body byte,
/// back-pressure through the receive window, and cancellation from either side.
final class StreamedResponseTests: XCTestCase {
    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    private func manager(monitor: TaskRecorder? = nil) -> URLSessionManager {
        let manager = URLSessionManager()
        if let monitor { manager.eventMonitors = [monitor] }
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    /// Keeps the tasks a manager creates and their completions' errors.
    private final class TaskRecorder: EventMonitor {
        let queue = DispatchQueue(label: "StreamedResponseTests.monitor")
        private let state = Locked<(tasks: [URLSessionTask], errors: [(any Error)?])>(([], []))
        var task: URLSessionTask? { state.withLock { $0.tasks.first } }
        var completions: [(any Error)?] { state.withLock { $0.errors } }

        func taskCreated(_ task: URLSessionTask, request: URLRequest) {
            state.withLock { $0.tasks.append(task) }
        }

        func task(_ task: URLSessionTask, didCompleteWith response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
            state.withLock { $0.errors.append(error) }
        }
    }

    private static func waitUntil(_ condition: () -> Bool, timeout: TimeInterval = 5) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(), Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
    }

    func testTheHeadIsReturnedBeforeTheBodyHasArrived() async throws {
        // The body takes 2.5 s; a head that waited for it would take 2 s at least.
        let server = try server { _ in ServerReply.text("abcde").dripped(1, every: 0.5) }
        let start = Date()
        let streamed = try await manager().stream(for: URLRequest(url: server.baseURL))
        XCTAssertEqual(streamed.statusCode, 200)
        XCTAssertLessThan(Date().timeIntervalSince(start), 1.5, "the head waited for the body")
        var chunks: [String] = []
        for try await chunk in streamed.body { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        XCTAssertEqual(chunks.joined(), "abcde")
        XCTAssertGreaterThan(chunks.count, 1, "the body arrived as it was sent")
    }

    func testALargeBodyArrivesWholeAndInOrder() async throws {
        let body = Data((0..<5_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 13) })
        let server = try server { _ in .status(200, body: body) }
        let streamed = try await manager().stream(for: URLRequest(url: server.baseURL))
        let received = try await streamed.body.collect(upTo: 10_000_000)
        XCTAssertEqual(received, body)
    }

    func testAnUnacceptableStatusThrowsWithTheHeadAndNoBody() async throws {
        let server = try server { _ in .text("no such thing", status: 404) }
        do {
            _ = try await manager().stream(for: URLRequest(url: server.baseURL))
            XCTFail("a 404 was accepted")
        } catch let error as ResponseSerializationError {
            XCTAssertEqual(error.reason, .unacceptableStatusCode(404))
            XCTAssertEqual(error.response?.statusCode, 404)
            XCTAssertNil(error.data)
        }
    }

    func testAnUnacceptableContentTypeThrowsBeforeTheBody() async throws {
        let server = try server { _ in .text("plain") }
        do {
            _ = try await manager().stream(for: URLRequest(url: server.baseURL), validation: HTTPResponseSerializer(acceptableContentTypes: ["text/event-stream"]))
            XCTFail("text/plain was accepted")
        } catch let error as ResponseSerializationError {
            XCTAssertEqual(error.reason, .unacceptableContentType("text/plain"))
        }
    }

    func testTheTransportReadsNoFurtherThanTheWindowAheadOfASlowConsumer() async throws {
        let size = 64 << 20
        let server = try server { _ in .status(200, body: Data(count: size)) }
        let recorder = TaskRecorder()
        let manager = manager(monitor: recorder)
        let streamed = try await manager.stream(for: URLRequest(url: server.baseURL))
        var iterator = streamed.body.makeAsyncIterator()
        var consumed = try await iterator.next()?.count ?? 0
        try await Task.sleep(nanoseconds: 500_000_000)
        let task = try XCTUnwrap(recorder.task)
        let delivered = try XCTUnwrap(manager.downloadProgress(for: task)).completedUnitCount
        XCTAssertLessThanOrEqual(delivered, Int64(ReceiveWindow.defaultLimit + 1 << 20), "read ahead of the consumer")
        while let chunk = try await iterator.next() { consumed += chunk.count }
        XCTAssertEqual(consumed, size)
    }

    /// A consumer that pauses now and then makes the window pause and resume the transfer
    /// hundreds of times, the consumer's release racing libcurl's pause: the socket of a paused
    /// transfer stays the transfer's, never taken for a pooled one and shut down.
    func testAConsumerPausingNowAndThenReceivesTheBodyWhole() async throws {
        let size = 256 << 20
        let server = try server { _ in .status(200, body: Data(count: size)) }
        let manager = manager()
        let streamed = try await manager.stream(for: URLRequest(url: server.baseURL))
        var consumed = 0
        var sincePause = 0
        for try await chunk in streamed.body {
            consumed += chunk.count
            sincePause += chunk.count
            if sincePause >= 1 << 20 {
                sincePause = 0
                usleep(1000)
            }
        }
        XCTAssertEqual(consumed, size)
    }

    /// Streams started while others pause and resume take pooled connections: a response that
    /// arrives before libcurl watches the reused socket again is the new request's own, never
    /// taken for bytes on an unused pooled connection and shut down.
    func testManyStreamsOnReusedConnectionsArriveWhole() async throws {
        let size = 4 << 20
        let server = try server { _ in .status(200, body: Data(count: size)) }
        let manager = manager()
        try await withThrowingTaskGroup(of: Int.self) { group in
            var started = 0
            func startOne() {
                group.addTask {
                    let streamed = try await manager.stream(for: URLRequest(url: server.baseURL))
                    var count = 0
                    for try await chunk in streamed.body { count += chunk.count }
                    return count
                }
                started += 1
            }
            while started < 8 { startOne() }
            var completed = 0
            while let count = try await group.next() {
                XCTAssertEqual(count, size)
                completed += 1
                if started < 120 { startOne() }
            }
            XCTAssertEqual(completed, 120)
        }
    }

    func testReleasingTheBodyCancelsTheTask() async throws {
        let server = try server { _ in .status(200, body: Data(count: 32 << 20)) }
        let recorder = TaskRecorder()
        let manager = manager(monitor: recorder)
        do {
            let streamed = try await manager.stream(for: URLRequest(url: server.baseURL))
            var iterator = streamed.body.makeAsyncIterator()
            _ = try await iterator.next()
        }
        try await Self.waitUntil { !recorder.completions.isEmpty }
        let error = try XCTUnwrap(recorder.completions.first ?? nil)
        XCTAssertEqual((error as? URLError)?.code, .cancelled)
    }

    func testCancellingTheConsumersTaskEndsTheBodyWithCancellation() async throws {
        let server = try server { _ in ServerReply.text("abc").dripped(1, every: 5) }
        let streamed = try await manager().stream(for: URLRequest(url: server.baseURL))
        let consumer = Task {
            var received = Data()
            for try await chunk in streamed.body { received.append(chunk) }
            return received
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        let start = Date()
        consumer.cancel()
        do {
            _ = try await consumer.value
            XCTFail("a cancelled consumer read the whole body")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .cancelled)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
    }

    func testABodyCutShortThrowsAfterTheChunksThatArrived() async throws {
        let server = try server { _ in ServerReply.status(200, body: Data(count: 1000)).cut(afterBodyBytes: 100) }
        let streamed = try await manager().stream(for: URLRequest(url: server.baseURL))
        var received = 0
        do {
            for try await chunk in streamed.body { received += chunk.count }
            XCTFail("a cut body ended normally")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .networkConnectionLost)
        }
        XCTAssertEqual(received, 100)
    }

    func testARetriedResponseIsNeverSeenByTheConsumer() async throws {
        let calls = Locked(0)
        let server = try server { _ in
            calls.withLock { count -> Int in
                count += 1
                return count
            } == 1 ? .text("busy", status: 503) : .text("streamed")
        }
        let manager = manager()
        manager.interceptor = RetryPolicy(backoffBase: 0.01)
        let streamed = try await manager.stream(for: URLRequest(url: server.baseURL))
        XCTAssertEqual(streamed.statusCode, 200)
        let received = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(String(decoding: received, as: UTF8.self), "streamed")
        XCTAssertEqual(server.requests.count, 2)
    }

    func testACutBodyContinuesWithARangeRequestWhenAnInterceptorRetries() async throws {
        let id = Int.random(in: 1_000_000...9_999_999)
        let manager = manager()
        manager.interceptor = RetryPolicy(backoffBase: 0.01)
        let streamed = try await manager.stream(for: URLRequest(url: try FaultServer.url("/cut/100000?id=\(id)")))
        let received = try await streamed.body.collect(upTo: 200_000)
        XCTAssertEqual(received, Data((0..<100_000).map { UInt8($0 % 256) }))
        let log = try await manager.data(for: URLRequest(url: try FaultServer.url("/log/\(id)")))
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: log.value) as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["range"] as? String }, [nil, "bytes=40000-"])
    }
}
