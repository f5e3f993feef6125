import AFLocking
import AFNetworkingTesting
import AFSerialization
import AFSession
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
}
