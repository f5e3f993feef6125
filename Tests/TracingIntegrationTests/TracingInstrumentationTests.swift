#if Tracing
import AFLocking
import AFNetworking
import AFNetworkingTesting
import AFNetworkingTracing
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import InMemoryTracing
import Tracing
import XCTest

/// The spans a `TracingInstrumentation` makes, and what the server receives, on a stub
/// transport or from a `TestServer` on loopback.
final class TracingInstrumentationTests: XCTestCase {
    private let tracer = TraceparentTracer()
    private let stubs = StubTransport()

    /// A traced manager on the stub transport, or on `transport`.
    private func manager(retrying: Bool = false, transport: HTTPTransport? = nil) -> URLSessionManager {
        let manager = URLSessionManager(transport: transport ?? stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        manager.instrumentation = TracingInstrumentation(tracer: tracer)
        if retrying { manager.interceptor = RetryPolicy(budget: nil, jitter: { _ in 0 }) }
        return manager
    }

    private var spans: [FinishedInMemorySpan] { tracer.memory.finishedSpans }

    private static func attributes(of span: FinishedInMemorySpan) -> [String: SpanAttribute] {
        var attributes: [String: SpanAttribute] = [:]
        span.attributes.forEach { attributes[$0] = $1 }
        return attributes
    }

    private func get(_ url: String, with manager: URLSessionManager? = nil) async throws {
        _ = try await (manager ?? self.manager()).data(for: URLRequest(url: URL(string: url)!))
    }

    func testAnAttemptIsAClientSpanNamedByItsMethodWithTheConventionsAttributes() async throws {
        let server = try TestServer { _ in .text("ok") }
        addTeardownBlock { server.stop() }
        try await get("\(server.baseURL.absoluteString)/v1/items?page=2", with: manager(transport: .libcurl))
        XCTAssertEqual(spans.map(\.operationName), ["GET"])
        XCTAssertEqual(spans.map(\.kind), [.client])
        XCTAssertEqual(spans.map(\.status), [nil])
        XCTAssertEqual(spans.map(Self.attributes), [[
            "http.request.method": .string("GET"), "server.address": .string("127.0.0.1"), "server.port": .int64(Int64(server.port)),
            "url.full": .string("\(server.baseURL.absoluteString)/v1/items?page=2"), "http.response.status_code": .int64(200),
            "network.protocol.version": .string("1.1"),
        ]])
    }

    func testAMethodHTTPDoesNotDefineNamesTheSpanHTTPAndKeepsTheOriginal() async throws {
        stubs.on("PURGE", "https://api.example.com/cache").reply(.text("purged"))
        var request = URLRequest(url: URL(string: "https://api.example.com/cache")!)
        request.httpMethod = "PURGE"
        _ = try await manager().data(for: request)
        XCTAssertEqual(spans.map(\.operationName), ["HTTP"])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["http.request.method"] }, [.string("_OTHER")])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["http.request.method_original"] }, [.string("PURGE")])
    }

    func testTheSpanIsAChildOfTheContextCurrentWhenTheTaskWasMade() async throws {
        stubs.on("GET", "https://api.example.com/a").reply(.text("a"))
        let manager = manager()
        let parent = tracer.startSpan("parent", context: .topLevel, ofKind: .server)
        var context = ServiceContext.topLevel
        context.inMemorySpanContext = parent.spanContext
        try await ServiceContext.withValue(context) { try await get("https://api.example.com/a", with: manager) }
        XCTAssertEqual(spans.map(\.parentSpanID), [parent.spanID])
        XCTAssertEqual(spans.map(\.traceID), [parent.traceID])
    }

    func testATaskMadeOutsideAnyContextIsARootSpan() async throws {
        stubs.on("GET", "https://api.example.com/a").reply(.text("a"))
        try await get("https://api.example.com/a")
        XCTAssertEqual(spans.map(\.parentSpanID), [nil])
    }

    func testEachRetryIsASpanOfItsOwnWithItsResendCountAndTheFailedOneIsAnError() async throws {
        stubs.on("GET", "https://api.example.com/flaky").replies([.status(503), .text("ok")])
        try await get("https://api.example.com/flaky", with: manager(retrying: true))
        XCTAssertEqual(spans.count, 2)
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["http.response.status_code"] }, [.int64(503), .int64(200)])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["http.request.resend_count"] }, [nil, .int64(1)])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["error.type"] }, [.string("503"), nil])
        XCTAssertEqual(spans.map(\.status?.code), [.error, nil])
        XCTAssertEqual(Set(spans.map(\.parentSpanID)), [nil])
    }

    func testARedirectFollowedIsASpanOfItsOwn() async throws {
        stubs.on("GET", "https://api.example.com/old").reply(.redirect(to: "https://api.example.com/new"))
        stubs.on("GET", "https://api.example.com/new").reply(.text("moved"))
        try await get("https://api.example.com/old")
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["url.full"] },
                       [.string("https://api.example.com/old"), .string("https://api.example.com/new")])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["http.response.status_code"] }, [.int64(302), .int64(200)])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["http.request.resend_count"] }, [nil, .int64(1)])
    }

    func testTheServerReceivesEachAttemptsOwnTraceparentInTheCallersTrace() async throws {
        let answered = Locked(0)
        let server = try TestServer { _ in answered.withLock { $0 += 1; return $0 } == 1 ? .status(503) : .text("ok") }
        addTeardownBlock { server.stop() }
        let manager = manager(retrying: true, transport: .libcurl)
        let parent = tracer.startSpan("parent", context: .topLevel, ofKind: .server)
        var context = ServiceContext.topLevel
        context.inMemorySpanContext = parent.spanContext
        try await ServiceContext.withValue(context) { try await get("\(server.baseURL.absoluteString)/flaky", with: manager) }
        XCTAssertEqual(server.requests.map { $0.value(forHeader: "traceparent") }, [
            "00-00000000000000000000000000000001-0000000000000002-01", "00-00000000000000000000000000000001-0000000000000003-01",
        ])
        XCTAssertEqual(spans.map { "00-\($0.traceID)-\($0.spanID)-01" }, server.requests.map { $0.value(forHeader: "traceparent") ?? "" })
    }

    func testARefusedConnectionEndsItsSpanAsAnErrorWithItsErrorType() async throws {
        stubs.on("GET", "https://api.example.com/down").reply(.failure(.cannotConnectToHost))
        do {
            try await get("https://api.example.com/down")
            XCTFail("a refused connection succeeded")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .cannotConnectToHost)
        }
        XCTAssertEqual(spans.map(\.status?.code), [.error])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["error.type"] }, [.string("URLError.cannotConnectToHost")])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["http.response.status_code"] }, [nil])
        XCTAssertEqual(spans.map { ($0.errors.first?.error as? URLError)?.code }, [.cannotConnectToHost])
    }

    func testA404EndsItsSpanAsAnError() async throws {
        stubs.on("GET", "https://api.example.com/missing").reply(.status(404))
        _ = try? await get("https://api.example.com/missing")
        XCTAssertEqual(spans.map(\.status?.code), [.error])
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["error.type"] }, [.string("404")])
    }

    func testTheFullURLCarriesNoCredentialNorSecretValue() async throws {
        stubs.on("GET").reply(.text("ok"))
        try await get("https://user:pa55@api.example.com/x?signature=abc123&page=1")
        XCTAssertEqual(spans.map { Self.attributes(of: $0)["url.full"] }, [.string("https://api.example.com/x?signature=%3Credacted%3E&page=1")])
    }
}
#endif
