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

/// Request bodies produced by an `AsyncSequence` as the transport sends them, against the
/// loopback test server on the libcurl transport.
final class StreamedRequestBodyTests: XCTestCase {
    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    private func manager() -> URLSessionManager {
        let manager = URLSessionManager()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func post(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        return request
    }

    /// The chunks as an `AsyncStream`, each after `pause` seconds.
    private static func chunks(_ parts: [String], pause: TimeInterval = 0) -> AsyncStream<Data> {
        AsyncStream { continuation in
            Task {
                for part in parts {
                    if pause > 0 { try? await Task.sleep(nanoseconds: UInt64(pause * 1_000_000_000)) }
                    continuation.yield(Data(part.utf8))
                }
                continuation.finish()
            }
        }
    }

    /// A POST whose body never yields (until the test ends) and records its sequence's end; a
    /// lost response fails at the 10-second idle timeout instead of the default minute.
    private func stalledBody(_ url: URL) -> (request: URLRequest, body: StreamedRequestBody, terminated: Locked<Bool>) {
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        let terminated = Locked(false)
        producer.onTermination = { _ in terminated.withLock { $0 = true } }
        addTeardownBlock { producer.finish() }
        var request = post(url)
        request.timeoutInterval = 10
        return (request, StreamedRequestBody(once: chunks), terminated)
    }

    /// A server answering `reply` as soon as a request's head arrived, stopped at the test's end.
    private func earlyReplyServer(_ reply: String, closesAfterReply: Bool = true) throws -> URL {
        let server = try EarlyReplyServer(reply: reply, closesAfterReply: closesAfterReply)
        addTeardownBlock { server.stop() }
        return server.url
    }

    /// Waits up to 5 seconds for `terminated`.
    private static func waitFor(_ terminated: Locked<Bool>) async throws {
        for _ in 0..<500 where !terminated.withLock({ $0 }) { try await Task.sleep(nanoseconds: 10_000_000) }
    }

    func testAFinalResponseBeforeTheBodyEndedCompletesTheUpload() async throws {
        let url = try earlyReplyServer("HTTP/1.1 413 Content Too Large\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntoo large")
        let (request, body, terminated) = stalledBody(url)
        let response = try await manager().upload(body, for: request, serializer: HTTPResponseSerializer(acceptableStatusCodes: nil))
        XCTAssertEqual(response.statusCode, 413)
        XCTAssertEqual(response.value, Data("too large".utf8))
        try await Self.waitFor(terminated)
        XCTAssertTrue(terminated.withLock { $0 }, "the body's sequence was not ended")
    }

    func testAChunkedFinalResponseBeforeTheBodyEndedCompletesTheUpload() async throws {
        try await assertEarly413CompletesTheUpload(
            "HTTP/1.1 413 Content Too Large\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\ntoo\r\n6\r\n large\r\n0\r\nX-Why: size\r\n\r\n")
    }

    func testAFinalResponseEndedByTheCloseBeforeTheBodyEndedCompletesTheUpload() async throws {
        try await assertEarly413CompletesTheUpload("HTTP/1.1 413 Content Too Large\r\nConnection: close\r\n\r\ntoo large")
    }

    func testAFinalResponseWithARepeatedContentLengthBeforeTheBodyEndedCompletesTheUpload() async throws {
        // The connection stays open: only the length, 5 by RFC 9110's rule as by libcurl's,
        // tells where the response ends; read as no length, it ended at the idle timeout.
        let url = try earlyReplyServer("HTTP/1.1 413 Content Too Large\r\nContent-Length: 5, 5\r\n\r\nlarge", closesAfterReply: false)
        let (request, body, _) = stalledBody(url)
        let response = try await manager().upload(body, for: request, serializer: HTTPResponseSerializer(acceptableStatusCodes: nil))
        XCTAssertEqual(response.statusCode, 413)
        XCTAssertEqual(response.value, Data("large".utf8))
    }

    /// An upload whose body has produced nothing is answered `reply` (a 413 with the body "too
    /// large") by the server at once: the task completes with that response.
    private func assertEarly413CompletesTheUpload(_ reply: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let (request, body, _) = stalledBody(try earlyReplyServer(reply))
        let response = try await manager().upload(body, for: request, serializer: HTTPResponseSerializer(acceptableStatusCodes: nil))
        XCTAssertEqual(response.statusCode, 413, file: file, line: line)
        XCTAssertEqual(response.value, Data("too large".utf8), file: file, line: line)
    }

    func testAStreamedResponseBeforeTheBodyEndedEndsItsBody() async throws {
        let url = try earlyReplyServer("HTTP/1.1 413 Content Too Large\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntoo large")
        let (request, body, terminated) = stalledBody(url)
        let streamed = try await manager().stream(for: request, body: body, validation: HTTPResponseSerializer(acceptableStatusCodes: nil))
        XCTAssertEqual(streamed.statusCode, 413)
        let received = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(received, Data("too large".utf8))
        try await Self.waitFor(terminated)
        XCTAssertTrue(terminated.withLock { $0 }, "the body's sequence was not ended")
    }

    func testAFailedUploadEndsItsBodysSequence() async throws {
        // The server answers at once and then waits for the body: the idle timeout fails the task.
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        var (request, body, terminated) = stalledBody(try earlyReplyServer(head, closesAfterReply: false))
        request.timeoutInterval = 1
        do {
            _ = try await manager().upload(body, for: request, serializer: HTTPResponseSerializer())
            XCTFail("the upload succeeded")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .timedOut, "\(error)")
        }
        try await Self.waitFor(terminated)
        XCTAssertTrue(terminated.withLock { $0 }, "the body's sequence was not ended")
    }

    func testABodyOfUnknownLengthIsSentChunkedInItsExactBytes() async throws {
        let server = try server { _ in .status(204) }
        let body = StreamedRequestBody(once: Self.chunks(["first,", "", "second,", "third"]))
        let response = try await manager().upload(body, for: post(server.baseURL), serializer: HTTPResponseSerializer())
        XCTAssertEqual(response.statusCode, 204)
        let recorded = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(recorded.body, Data("first,second,third".utf8))
        XCTAssertEqual(recorded.value(forHeader: "Transfer-Encoding"), "chunked")
        XCTAssertNil(recorded.value(forHeader: "Content-Length"))
    }

    func testTrailersFollowTheLastChunk() async throws {
        let server = try server { _ in .status(204) }
        let body = StreamedRequestBody(trailers: { ["Checksum": "sha256=abc", "X-Parts": "2"] }, once: Self.chunks(["one,", "two"]))
        _ = try await manager().upload(body, for: post(server.baseURL), serializer: HTTPResponseSerializer())
        let recorded = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(recorded.body, Data("one,two".utf8))
        XCTAssertEqual(recorded.value(forHeader: "Transfer-Encoding"), "chunked")
        XCTAssertEqual(recorded.trailers, [.init(name: "Checksum", value: "sha256=abc"), .init(name: "X-Parts", value: "2")])
    }

    func testTrailersAreAskedForOnlyAfterTheSequenceEnded() async throws {
        let server = try server { _ in .status(204) }
        let produced = Locked(0)
        let sequence = AsyncStream<Data> { continuation in
            for part in ["a", "b", "c"] {
                produced.withLock { $0 += 1 }
                continuation.yield(Data(part.utf8))
            }
            continuation.finish()
        }
        let body = StreamedRequestBody(trailers: { ["X-Parts": "\(produced.withLock { $0 })"] }, once: sequence)
        _ = try await manager().upload(body, for: post(server.baseURL), serializer: HTTPResponseSerializer())
        XCTAssertEqual(server.requests.first?.trailers, [.init(name: "X-Parts", value: "3")])
    }

    func testABodyOfKnownLengthWithTrailersIsSentChunked() async throws {
        let server = try server { _ in .status(204) }
        let body = StreamedRequestBody(length: 6, trailers: { ["X-Done": "yes"] }, once: Self.chunks(["abc", "def"]))
        _ = try await manager().upload(body, for: post(server.baseURL), serializer: HTTPResponseSerializer())
        let recorded = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(recorded.body, Data("abcdef".utf8))
        XCTAssertNil(recorded.value(forHeader: "Content-Length"))
        XCTAssertEqual(recorded.trailers, [.init(name: "X-Done", value: "yes")])
    }

    func testTrailersAreRefusedOnURLSessionsOwnProtocolInsteadOfDropped() async throws {
        let server = try server { _ in .status(204) }
        let manager = URLSessionManager(transport: .urlSession)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let body = StreamedRequestBody(trailers: { ["X-Done": "yes"] }, once: Self.chunks(["abc"]))
        do {
            _ = try await manager.upload(body, for: post(server.baseURL), serializer: HTTPResponseSerializer())
            XCTFail("a body with trailers was sent without them")
        } catch let error as SessionError {
            guard case .invalidRequest(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("trailers"), reason)
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testARestartedBodySendsItsTrailersAgain() async throws {
        let server = try server { request in
            request.path == "/start" ? .status(307, fields: ["Location": "/next"]) : .status(204)
        }
        let body = StreamedRequestBody(trailers: { ["X-Done": "yes"] }, restartingWith: { Self.chunks(["abc"]) })
        _ = try await manager().upload(body, for: post(server.baseURL.appendingPathComponent("start")), serializer: HTTPResponseSerializer())
        XCTAssertEqual(server.requests.map(\.path), ["/start", "/next"])
        XCTAssertEqual(server.requests.map(\.trailers), Array(repeating: [.init(name: "X-Done", value: "yes")], count: 2))
    }

    func testATrailerWithALineBreakFailsTheTask() async throws {
        try await assertTrailersRefused(["X-Split": "a\r\nInjected: yes"], name: "X-Split")
    }

    func testATrailerThatFramesTheMessageFailsTheTask() async throws {
        try await assertTrailersRefused(["Content-Length": "0"], name: "Content-Length")
    }

    private func assertTrailersRefused(_ trailers: [String: String], name: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let server = try server { _ in .status(204) }
        let body = StreamedRequestBody(trailers: { trailers }, once: Self.chunks(["abc"]))
        do {
            _ = try await manager().upload(body, for: post(server.baseURL), serializer: HTTPResponseSerializer())
            XCTFail("the trailers were sent", file: file, line: line)
        } catch let error as SessionError {
            guard case .bodyStreamFailed(let underlying) = error, case .invalidHeader(let refused, _)? = underlying as? RequestSerializationError else {
                return XCTFail("\(error)", file: file, line: line)
            }
            XCTAssertEqual(refused, name, file: file, line: line)
        }
        XCTAssertTrue(server.requests.allSatisfy { $0.trailers.isEmpty }, file: file, line: line)
    }

    func testABodyOfKnownLengthIsSentWithItsContentLength() async throws {
        let server = try server { _ in .status(204) }
        let body = StreamedRequestBody(length: 10, once: Self.chunks(["01234", "56789"]))
        _ = try await manager().upload(body, for: post(server.baseURL), serializer: HTTPResponseSerializer())
        XCTAssertEqual(server.requests.first?.body, Data("0123456789".utf8))
        XCTAssertEqual(server.requests.first?.value(forHeader: "Content-Length"), "10")
    }

    func testASequenceShorterThanItsDeclaredLengthFailsTheTask() async throws {
        let server = try server { _ in .status(204) }
        let body = StreamedRequestBody(length: 20, once: Self.chunks(["short"]))
        do {
            _ = try await manager().upload(body, for: post(server.baseURL), serializer: HTTPResponseSerializer())
            XCTFail("a short body was sent as complete")
        } catch let error as SessionError {
            guard case .bodyStreamFailed = error else { return XCTFail("\(error)") }
        }
    }

    func testASequenceThatThrowsFailsTheTaskWithItsError() async throws {
        struct Broken: Error {}
        let server = try server { _ in .status(204) }
        let failing = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("part".utf8))
            continuation.finish(throwing: Broken())
        }
        do {
            _ = try await manager().upload(StreamedRequestBody(once: failing), for: post(server.baseURL), serializer: HTTPResponseSerializer())
            XCTFail("a failed body was sent as complete")
        } catch let error as SessionError {
            guard case .bodyStreamFailed(let underlying) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(underlying is Broken, "\(underlying)")
        }
    }

    func testARestartableBodyFollowsA307WithAllItsBytes() async throws {
        let server = try server { request in
            request.path == "/old" ? .status(307, fields: ["Location": "/new"]) : .status(200, body: request.body)
        }
        let body = StreamedRequestBody(length: 6) { Self.chunks(["abc", "def"]) }
        let response = try await manager().upload(body, for: post(server.baseURL.appendingPathComponent("old")), serializer: HTTPResponseSerializer())
        XCTAssertEqual(response.value, Data("abcdef".utf8))
        XCTAssertEqual(server.requests.map(\.path), ["/old", "/new"])
    }

    func testABodyOnlySentOnceIsNotResentOnA307() async throws {
        let server = try server { request in
            request.path == "/old" ? .status(307, fields: ["Location": "/new"]) : .status(200, body: request.body)
        }
        do {
            _ = try await manager().upload(
                StreamedRequestBody(once: Self.chunks(["abc"])), for: post(server.baseURL.appendingPathComponent("old")),
                serializer: HTTPResponseSerializer())
            XCTFail("a body sent once was sent again")
        } catch let error as SessionError {
            guard case .redirectWouldDropBody = error else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(server.requests.map(\.path), ["/old"])
    }

    func testAStreamedResponseToABodyOnlySentOnceFailsOnA307InsteadOfReturningTheRedirect() async throws {
        let server = try server { request in
            request.path == "/old" ? .status(307, fields: ["Location": "/new"]) : .status(200, body: request.body)
        }
        do {
            let streamed = try await manager().stream(
                for: post(server.baseURL.appendingPathComponent("old")), body: StreamedRequestBody(once: Self.chunks(["abc"])),
                validation: HTTPResponseSerializer(acceptableStatusCodes: nil))
            XCTFail("the redirect came back as the response (\(streamed.statusCode))")
        } catch let error as SessionError {
            guard case .redirectWouldDropBody(let redirect) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(redirect.statusCode, 307)
        }
        XCTAssertEqual(server.requests.map(\.path), ["/old"])
    }

    func testAStreamedResponseToABodyOnlySentOnceFailsOnA307WhoseBodyIsLongerThanTheReceiveWindow() async throws {
        let server = try server { _ in .status(307, fields: ["Location": "/new"], body: Data(count: 4 * 1024 * 1024)) }
        let manager = manager()
        let request = post(server.baseURL.appendingPathComponent("old"))
        let body = StreamedRequestBody(once: Self.chunks(["abc"]))
        let call = Task {
            try await manager.stream(for: request, body: body, validation: HTTPResponseSerializer(acceptableStatusCodes: nil)).statusCode
        }
        // A transfer paused for a consumer that never comes is not idle: only cancelling ends it.
        let watchdog = Task {
            try await Task.sleep(nanoseconds: 10_000_000_000)
            call.cancel()
        }
        defer { watchdog.cancel() }
        do {
            let status = try await call.value
            XCTFail("the redirect came back as the response (\(status))")
        } catch let error as SessionError {
            guard case .redirectWouldDropBody = error else { return XCTFail("\(error)") }
        } catch {
            XCTFail("\(error)")
        }
    }

    func testASlowProducerHoldsBackOnlyItsOwnUpload() async throws {
        let server = try server { request in .text(request.path) }
        let manager = manager()
        let slowRequest = post(server.baseURL.appendingPathComponent("slow"))
        // Generous margins: a transport wedged by the producer would hold the quick request for
        // at least 1.8 s, and two shared cores can slow an honest one past half a second.
        let slowBody = StreamedRequestBody(once: Self.chunks(["a", "b"], pause: 2))
        let slow = Task {
            try await manager.upload(slowBody, for: slowRequest, serializer: HTTPResponseSerializer())
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        let start = Date()
        let quick = try await manager.data(for: URLRequest(url: server.baseURL.appendingPathComponent("quick")))
        XCTAssertEqual(String(decoding: quick.value, as: UTF8.self), "/quick")
        XCTAssertLessThan(Date().timeIntervalSince(start), 1.5, "the other request waited for the slow body")
        _ = try await slow.value
        XCTAssertEqual(server.requests.first { $0.path == "/slow" }?.body, Data("ab".utf8))
    }

    func testAStreamedBodyAndAStreamedResponseGoInOneExchange() async throws {
        let server = try server { request in .status(200, body: request.body) }
        let body = StreamedRequestBody { () -> AsyncStream<Data> in
            AsyncStream { continuation in
                for index in 0..<200 { continuation.yield(Data(repeating: UInt8(index % 256), count: 16 * 1024)) }
                continuation.finish()
            }
        }
        let streamed = try await manager().stream(for: post(server.baseURL), body: body)
        let received = try await streamed.body.collect(upTo: 10 << 20)
        XCTAssertEqual(received, Data((0..<200).flatMap { Data(repeating: UInt8($0 % 256), count: 16 * 1024) }))
        XCTAssertEqual(server.requests.first?.body, received)
    }
}
