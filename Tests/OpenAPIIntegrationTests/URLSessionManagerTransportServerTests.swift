#if OpenAPI
import AFLocking
import AFNetworking
import AFNetworkingOpenAPI
import AFNetworkingTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import OpenAPIRuntime
import XCTest

/// `URLSessionManagerTransport` on the libcurl transport against the loopback `TestServer`:
/// bodies that can be iterated once are never sent again (a 307 or a retry fails instead), and
/// a response body is handed on as it arrives.
final class URLSessionManagerTransportServerTests: XCTestCase {
    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    private func transport(interceptor: (any RequestInterceptor)? = nil) -> URLSessionManagerTransport {
        let manager = URLSessionManager()
        manager.interceptor = interceptor
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return URLSessionManagerTransport(manager: manager)
    }

    private static func post(_ path: String) -> HTTPRequest {
        HTTPRequest(method: .post, scheme: nil, authority: nil, path: path)
    }

    /// "hello", which can be iterated once only.
    private static var helloOnce: HTTPBody {
        HTTPBody(AsyncStream { continuation in
            continuation.yield(ArraySlice("hello".utf8))
            continuation.finish()
        }, length: .known(5), iterationBehavior: .single)
    }

    /// A policy that retries a POST whose connection was lost at once.
    private static let retryingPOST = RetryPolicy(retriesNonIdempotentRequests: true, budget: nil, jitter: { _ in 0 })

    /// Retries a 503 once, whatever the request.
    private struct RetryingUnavailable: RequestInterceptor {
        func retry(_ context: RetryContext) async -> RetryDecision {
            context.response?.statusCode == 503 && context.attempt == 1 ? .retry : .doNotRetry
        }
    }

    /// Answers the first request with a 503, then with 201.
    private func serverUnavailableOnce() throws -> TestServer {
        let calls = Locked(0)
        return try server { _ in
            calls.withLock { count -> Int in
                count += 1
                return count
            } == 1 ? .status(503) : .status(201)
        }
    }

    /// Answers /old with a 307 to /new, and /new with a 201.
    private func redirectingServer() throws -> TestServer {
        try server { request in request.path == "/old" ? .status(307, fields: ["Location": "/new"]) : .status(201) }
    }

    /// Closes the first connection without a response, then answers 201.
    private func serverDroppingTheFirstRequest() throws -> TestServer {
        let calls = Locked(0)
        return try server { _ in
            calls.withLock { count -> Int in
                count += 1
                return count
            } == 1 ? .raw([.close]) : .status(201)
        }
    }

    func testA307OfABodyIteratedOnceFailsWithRedirectWouldDropBody() async throws {
        let server = try redirectingServer()
        do {
            let (response, _) = try await transport().send(Self.post("/old"), body: Self.helloOnce, baseURL: server.baseURL, operationID: "create")
            XCTFail("a body iterated once came back with \(response.status.code)")
        } catch let error as SessionError {
            guard case .redirectWouldDropBody(let redirect) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(redirect.statusCode, 307)
        }
        XCTAssertEqual(server.requests.map(\.path), ["/old"])
    }

    func testA307OfABodyIteratedManyTimesSendsItAgain() async throws {
        let server = try redirectingServer()
        let (response, _) = try await transport().send(Self.post("/old"), body: HTTPBody("hello"), baseURL: server.baseURL, operationID: "create")
        XCTAssertEqual(response.status.code, 201)
        XCTAssertEqual(server.requests.map(\.path), ["/old", "/new"])
        XCTAssertEqual(server.requests.map { String(decoding: $0.body, as: UTF8.self) }, ["hello", "hello"])
    }

    func testARetryOfABodyIteratedOnceFailsWithBodyCannotBeReplayed() async throws {
        let server = try serverDroppingTheFirstRequest()
        do {
            let (response, _) = try await transport(interceptor: Self.retryingPOST)
                .send(Self.post("/items"), body: Self.helloOnce, baseURL: server.baseURL, operationID: "create")
            XCTFail("a body iterated once came back with \(response.status.code)")
        } catch let error as RetryError {
            guard case .bodyCannotBeReplayed = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(server.requests.count, 1, "the body was sent again")
    }

    func testARetryOfABodyIteratedManyTimesSendsItAgain() async throws {
        let server = try serverDroppingTheFirstRequest()
        let (response, _) = try await transport(interceptor: Self.retryingPOST)
            .send(Self.post("/items"), body: HTTPBody("hello"), baseURL: server.baseURL, operationID: "create")
        XCTAssertEqual(response.status.code, 201)
        XCTAssertEqual(server.requests.map { String(decoding: $0.body, as: UTF8.self) }, ["hello", "hello"])
    }

    func testAnInterceptorsRetryOfAStatusWithABodyIteratedOnceFailsWithBodyCannotBeReplayed() async throws {
        let server = try serverUnavailableOnce()
        do {
            let (response, _) = try await transport(interceptor: RetryingUnavailable())
                .send(Self.post("/items"), body: Self.helloOnce, baseURL: server.baseURL, operationID: "create")
            XCTFail("the retried status came back as the response (\(response.status.code))")
        } catch let error as RetryError {
            guard case .bodyCannotBeReplayed(let underlying) = error else { return XCTFail("\(error)") }
            XCTAssertEqual((underlying as? URLError)?.code, .requestBodyStreamExhausted)
        }
        XCTAssertEqual(server.requests.count, 1, "the body was sent again")
    }

    func testAnInterceptorsRetryOfAStatusWithABodyIteratedManyTimesSendsItAgain() async throws {
        let server = try serverUnavailableOnce()
        let (response, _) = try await transport(interceptor: RetryingUnavailable())
            .send(Self.post("/items"), body: HTTPBody("hello"), baseURL: server.baseURL, operationID: "create")
        XCTAssertEqual(response.status.code, 201)
        XCTAssertEqual(server.requests.map { String(decoding: $0.body, as: UTF8.self) }, ["hello", "hello"])
    }

    func testRepeatedResponseFieldsArriveOneFieldALine() async throws {
        let server = try server { _ in
            var reply = ServerReply.status(204)
            reply.fields = [.init(name: "Set-Cookie", value: "a=1; Path=/"), .init(name: "Set-Cookie", value: "b=2; Path=/"),
                            .init(name: "X-Custom", value: "one"), .init(name: "X-Custom", value: "two")]
            return reply
        }
        let (response, _) = try await transport().send(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/fields"), body: nil, baseURL: server.baseURL, operationID: "fields")
        XCTAssertEqual(response.headerFields[values: .setCookie], ["a=1; Path=/", "b=2; Path=/"])
        XCTAssertEqual(response.headerFields[values: HTTPField.Name("X-Custom")!], ["one", "two"])
    }

    func testTheFirstChunkOfAResponseIsReadWhileTheServerHoldsBackTheRest() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Type: text/plain\r\n\r\n"
        let server = try server { _ in .raw([.send(Data((head + "first").utf8)), .pause(3), .send(Data("later".utf8))]) }
        let start = Date()
        let (_, body) = try await transport().send(
            HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/feed"), body: nil, baseURL: server.baseURL, operationID: "feed")
        var chunks = try XCTUnwrap(body).makeAsyncIterator()
        let first = try await chunks.next()
        // The rest comes 3 s after the first chunk: a body read only once complete takes 3 s.
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "the first chunk waited for the rest")
        var received = first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        while let chunk = try await chunks.next() { received += String(decoding: chunk, as: UTF8.self) }
        XCTAssertEqual(received, "firstlater")
    }
}
#endif
