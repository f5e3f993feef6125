import AFLocking
import AFNetworkingTesting
import AFSerialization
@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `URLSessionManager.events(for:)` against the loopback test server: events as they arrive,
/// reconnection with `Last-Event-ID` and the server's `retry` when the interceptor allows it,
/// and the responses that end the stream.
final class ServerSentEventStreamTests: XCTestCase {
    /// A server answering its `n`th request (from 1) with `replies[n - 1]`, the last repeating.
    private func server(_ replies: [ServerReply]) throws -> TestServer {
        let count = Locked(0)
        let server = try TestServer { _ in
            let index = count.withLock { count -> Int in
                count += 1
                return count - 1
            }
            return replies[min(index, replies.count - 1)]
        }
        addTeardownBlock { server.stop() }
        return server
    }

    private func manager(interceptor: (any RequestInterceptor)? = nil) -> URLSessionManager {
        let manager = URLSessionManager()
        manager.interceptor = interceptor
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private static func eventStream(_ text: String) -> ServerReply {
        .status(200, fields: ["Content-Type": "text/event-stream"], body: Data(text.utf8))
    }

    private func collect(_ stream: ServerSentEventStream) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for try await event in stream { events.append(event) }
        return events
    }

    func testEventsArriveAsTheServerSendsThem() async throws {
        let server = try server([Self.eventStream("data: one\n\n: keep-alive\n\nevent: done\ndata: two\n\n").dripped(8, every: 0.05)])
        let events = try await collect(manager().events(for: URLRequest(url: server.baseURL)))
        XCTAssertEqual(events, [ServerSentEvent(data: "one"), ServerSentEvent(event: "done", data: "two")])
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.value(forHeader: "Accept"), "text/event-stream")
        XCTAssertEqual(request.value(forHeader: "Cache-Control"), "no-cache")
        XCTAssertNil(request.value(forHeader: "Last-Event-ID"))
    }

    func testAReconnectionSendsTheLastEventIDAfterTheServersRetryTime() async throws {
        let server = try server([
            Self.eventStream("retry: 200\nid: 1\ndata: first\n\n"),
            Self.eventStream("id: 2\ndata: second\n\n"),
            .status(204),
        ])
        let start = Date()
        let events = try await collect(manager(interceptor: RetryPolicy(backoffBase: 5)).events(for: URLRequest(url: server.baseURL)))
        XCTAssertEqual(events, [ServerSentEvent(data: "first", id: "1"), ServerSentEvent(data: "second", id: "2")])
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Last-Event-ID") }, [nil, "1", "2"])
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(elapsed, 0.4, "two reconnections waited the server's 200 ms each")
        XCTAssertLessThan(elapsed, 3, "the server's retry time replaced the policy's backoff")
    }

    func testWithoutAnInterceptorTheStreamEndsWithItsConnection() async throws {
        let server = try server([Self.eventStream("data: only\n\n")])
        let events = try await collect(manager().events(for: URLRequest(url: server.baseURL)))
        XCTAssertEqual(events, [ServerSentEvent(data: "only")])
        XCTAssertEqual(server.requests.count, 1)
    }

    func testTheInterceptorsLimitEndsReconnection() async throws {
        let server = try server([Self.eventStream("retry: 10\n\n")])
        let events = try await collect(manager(interceptor: RetryPolicy(maximumRetries: 2, budget: nil)).events(for: URLRequest(url: server.baseURL)))
        XCTAssertEqual(events, [])
        XCTAssertEqual(server.requests.count, 3, "the first connection and two reconnections")
    }

    func testAnotherContentTypeFailsWithoutReconnecting() async throws {
        let server = try server([.text("not events")])
        do {
            _ = try await collect(manager(interceptor: RetryPolicy()).events(for: URLRequest(url: server.baseURL)))
            XCTFail("text/plain was taken for an event stream")
        } catch let error as ResponseSerializationError {
            XCTAssertEqual(error.reason, .unacceptableContentType("text/plain"))
        }
        XCTAssertEqual(server.requests.count, 1)
    }

    func testALineOverTheLimitFailsTheStream() async throws {
        let server = try server([Self.eventStream("data: " + String(repeating: "x", count: 100) + "\n\n")])
        do {
            _ = try await collect(manager(interceptor: RetryPolicy()).events(for: URLRequest(url: server.baseURL), maximumLineLength: 64))
            XCTFail("an over-long line was accepted")
        } catch let error as StreamingError {
            XCTAssertEqual(error, .lineTooLong(limit: 64))
        }
        XCTAssertEqual(server.requests.count, 1)
    }

    func testAnInterceptorFailingTheReconnectionEndsTheStreamWithItsError() async throws {
        struct Refused: Error {}
        struct Refusing: RequestInterceptor {
            func retry(_ context: RetryContext) async -> RetryDecision { .fail(Refused()) }
        }
        let server = try server([Self.eventStream("data: one\n\n")])
        var events: [ServerSentEvent] = []
        do {
            for try await event in manager(interceptor: Refusing()).events(for: URLRequest(url: server.baseURL)) { events.append(event) }
            XCTFail("the stream ended without the interceptor's error")
        } catch is Refused {}
        XCTAssertEqual(events, [ServerSentEvent(data: "one")])
        XCTAssertEqual(server.requests.count, 1)
    }

    func testTheServersRetryTimeIsBoundedToAnHour() {
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: 99999999999999999, interceptorDelay: 0), 3600)
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: .max, interceptorDelay: 0), 3600)
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: 3_600_000, interceptorDelay: 0), 3600)
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: 1500, interceptorDelay: 9), 1.5)
    }

    func testTheInterceptorsDelayIsBoundedToAnHour() {
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: nil, interceptorDelay: 1e300), 3600)
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: nil, interceptorDelay: .infinity), 3600)
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: nil, interceptorDelay: 2), 2)
    }

    func testAnInterceptorDelayBelowZeroOrNotANumberReconnectsAtOnce() {
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: nil, interceptorDelay: -5), 0)
        XCTAssertEqual(ServerSentEventStream.reconnectionDelay(retryMilliseconds: nil, interceptorDelay: .nan), 0)
    }

    func testAHugeRetryTimeWaitsInsteadOfCrashing() async throws {
        let asked = expectation(description: "the interceptor was asked to reconnect")
        let server = try server([Self.eventStream("retry: 99999999999999999\n\n")])
        let stream = manager(interceptor: Reconnecting { asked.fulfill() }).events(for: URLRequest(url: server.baseURL))
        let consumer = Task {
            for try await _ in stream {}
        }
        await fulfillment(of: [asked], timeout: 10)
        consumer.cancel()
        do {
            _ = try await consumer.value
            XCTFail("the stream ended instead of waiting for its reconnection")
        } catch is CancellationError {}
        XCTAssertEqual(server.requests.count, 1, "the bounded wait was still running when the consumer cancelled it")
    }

    func testAnIDWithNULBeforeACombiningMarkLeavesTheLastEventIDOfTheReconnection() async throws {
        let server = try server([Self.eventStream("retry: 10\nid: 1\ndata: a\n\nid: ab\u{0}\u{301}cd\ndata: b\n\n"), .status(204)])
        let events = try await collect(manager(interceptor: RetryPolicy()).events(for: URLRequest(url: server.baseURL)))
        XCTAssertEqual(events, [ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1")])
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "Last-Event-ID") }, [nil, "1"])
    }

    func testDataLinesWithoutABlankLineFailTheStreamPastTheBodyLimitInBoundedMemory() async throws {
        // 128 MiB of 16 KiB data lines, the same buffer sent again and again, then the close.
        let line = Data(("data: " + String(repeating: "x", count: (16 << 10) - 7) + "\n").utf8)
        let head = Data("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n".utf8)
        let server = try server([.raw([.send(head)] + Array(repeating: .send(line), count: 8 << 10) + [.close])])
        let manager = manager()
        manager.responseLimits.maximumBodySize = 1 << 20
        let before = try ResidentMemory.current()
        try ResidentMemory.resetPeak()
        do {
            _ = try await collect(manager.events(for: URLRequest(url: server.baseURL)))
            XCTFail("the data of an event without end was accepted")
        } catch let error as StreamingError {
            XCTAssertEqual(error, .eventDataTooLarge(limit: 1 << 20))
        }
        let growth = try ResidentMemory.peak() - before
        XCTAssertLessThan(growth, 32 << 20, "the process grew by \(growth >> 20) MiB while 128 MiB of data arrived")
    }
}

/// An interceptor that always reconnects at once, calling `asked` first.
private struct Reconnecting: RequestInterceptor {
    let asked: @Sendable () -> Void

    func retry(_ context: RetryContext) async -> RetryDecision {
        asked()
        return .retry
    }
}

/// The process's resident memory, read from /proc (Linux).
private enum ResidentMemory {
    /// The resident size now, in bytes.
    static func current() throws -> Int { try field("VmRSS") }

    /// The largest resident size since the last `resetPeak()`, in bytes.
    static func peak() throws -> Int { try field("VmHWM") }

    /// Makes the peak the current size (writing 5 to clear_refs resets VmHWM).
    static func resetPeak() throws {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    private static func field(_ name: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.utf8.filter { (0x30...0x39).contains($0) }.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            return kilobytes << 10
        }
        throw CocoaError(.fileReadCorruptFile)
    }
}
