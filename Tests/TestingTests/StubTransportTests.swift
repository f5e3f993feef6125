import AFLocking
import AFNetworking
import AFNetworkingTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A manager on a stub transport, as a user's test suite drives it: everything above the
/// transport is real (serializers, interceptors and retries, redirect rules, progress,
/// downloads), and nothing is shared between managers.
final class StubTransportTests: XCTestCase {
    private struct User: Codable, Equatable, Sendable {
        var id: Int
        var name: String
    }

    private let base = URL(string: "https://api.example.com")!

    private func manager(_ stubs: StubTransport) -> HTTPSessionManager {
        let manager = HTTPSessionManager(baseURL: base, transport: stubs.transport)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testAJSONCallIsAnsweredAndDecoded() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/users/1").reply(try .json(User(id: 1, name: "Ada")))
        let user: User = try await manager(stubs).get("v1/users/1")
        XCTAssertEqual(user, User(id: 1, name: "Ada"))
        XCTAssertEqual(stubs.requests.map(\.target), ["/v1/users/1"])
        XCTAssertEqual(stubs.requests.first?.url, URL(string: "https://api.example.com/v1/users/1"))
    }

    func testTheRequestIsRecordedAsTheSerializerBuiltIt() async throws {
        let stubs = StubTransport()
        stubs.on("POST", "/v1/users", body: try .json(["name": "Ada"])).reply(try .json(User(id: 2, name: "Ada"), status: 201))
        let manager = manager(stubs)
        manager.requestSerializer = JSONRequestSerializer()
        let user: User = try await manager.post("v1/users", parameters: ["name": "Ada"], headers: ["X-Trace": "t1"])
        XCTAssertEqual(user.id, 2)
        let request = try XCTUnwrap(stubs.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.value(forHeader: "Content-Type"), "application/json")
        XCTAssertEqual(request.value(forHeader: "X-Trace"), "t1")
        XCTAssertEqual(request.text, #"{"name":"Ada"}"#)
    }

    func testARecordedJSONBodyDecodes() async throws {
        struct NewUser: Codable, Equatable { var name: String }
        let stubs = StubTransport()
        stubs.on("POST", "/v1/users").reply(try .json(User(id: 2, name: "Ada"), status: 201))
        let manager = manager(stubs)
        manager.requestSerializer = JSONRequestSerializer()
        let _: User = try await manager.post("v1/users", parameters: ["name": "Ada"])
        XCTAssertEqual(try stubs.requests.first?.decoded(as: NewUser.self), NewUser(name: "Ada"))
    }

    func testARecordedFormBodyListsItsFields() async throws {
        let stubs = StubTransport()
        stubs.on("POST", "/v1/search").reply(try .json([User]()))
        let _: [User] = try await manager(stubs).post("v1/search", parameters: ["q": "a b&c", "page": "2"])
        XCTAssertEqual(stubs.requests.first?.formFields.sorted { $0.name < $1.name },
                       [URLQueryItem(name: "page", value: "2"), URLQueryItem(name: "q", value: "a b&c")])
    }

    func testRetriesGoThroughASequenceOfReplies() async throws {
        let stubs = StubTransport()
        let route = stubs.on("GET", "/v1/report").replies([.status(503), .status(503), .text("ready")])
        let manager = manager(stubs)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.interceptor = RetryPolicy(backoffBase: 0.01, jitter: { $0 })
        let response = try await manager.data(for: URLRequest(url: base.appendingPathComponent("v1/report")))
        XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "ready")
        XCTAssertEqual(route.callCount, 3)
    }

    func testATokenIsRefreshedOnA401AndTheRequestRetried() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/me", headers: ["Authorization": "Bearer fresh"]).reply(try .json(User(id: 3, name: "Grace")))
        stubs.on("GET", "/v1/me").reply(.status(401))
        let manager = manager(stubs)
        manager.interceptor = Authenticator<String>(
            credential: "stale", apply: { token, request in request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") },
            refresh: { _ in "fresh" })
        let user: User = try await manager.get("v1/me")
        XCTAssertEqual(user.name, "Grace")
        XCTAssertEqual(stubs.requests.compactMap { $0.value(forHeader: "Authorization") }, ["Bearer stale", "Bearer fresh"])
    }

    func testAMultipartUploadsPartsCanBeAsserted() async throws {
        let stubs = StubTransport()
        stubs.on("POST", "/v1/files", body: .multipartPart(named: "file", filename: "a.txt", content: Data("hello".utf8)))
            .reply(try .json(["stored": true]))
        let stored: [String: Bool] = try await manager(stubs).post("v1/files", parameters: ["note": "first"], constructingBodyWith: { form in
            try form.appendPart(withFileData: Data("hello".utf8), name: "file", fileName: "a.txt", mimeType: "text/plain")
        })
        XCTAssertEqual(stored, ["stored": true])
        let request = try XCTUnwrap(stubs.requests.first)
        let parts = MultipartParts.parse(request.body, contentType: request.value(forHeader: "Content-Type"))
        XCTAssertEqual(parts.map(\.name), ["note", "file"])
        XCTAssertEqual(parts.first?.content, Data("first".utf8))
        XCTAssertEqual(parts.last?.contentType, "text/plain")
    }

    func testADownloadIsWrittenThroughTheRealDownloadPathWithProgress() async throws {
        let stubs = StubTransport()
        let body = Data((0..<4096).map { UInt8($0 % 251) })
        stubs.on("GET", "/files/blob").reply(StubReply.status(200, body: body).chunked(1024))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("stub-download-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: destination) }
        let fractions = Locked<[Double]>([])
        let response = try await manager(stubs).download(
            for: URLRequest(url: base.appendingPathComponent("files/blob")), to: destination,
            progress: { progress in fractions.withLock { $0.append(progress.fractionCompleted) } })
        XCTAssertEqual(response.value, destination)
        XCTAssertEqual(try Data(contentsOf: destination), body)
        XCTAssertEqual(fractions.withLock { $0.last }, 1.0)
    }

    func testAnUnmatchedRequestFailsNamingItAndTheNearestRoutes() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/users/1").reply(.text("one"))
        stubs.on("POST", "/v1/orders").reply(.text("order"))
        do {
            let _: User = try await manager(stubs).get("v1/users/2")
            XCTFail("an unmatched request succeeded")
        } catch let error as StubError {
            XCTAssertEqual(error, .unmatched(request: "GET https://api.example.com/v1/users/2", nearest: ["GET /v1/users/1", "POST /v1/orders"]))
        }
        XCTAssertEqual(stubs.unusedRoutes.map(\.description), ["GET /v1/users/1", "POST /v1/orders"])
    }

    func testARedirectIsFollowedByTheManagersRulesAndDropsCredentialsAcrossOrigins() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/old").reply(.redirect(to: "https://other.example.com/new"))
        stubs.on("GET", "https://other.example.com/new").reply(.text("moved"))
        let manager = manager(stubs)
        manager.responseSerializer = HTTPResponseSerializer()
        var request = URLRequest(url: base.appendingPathComponent("old"))
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        let response = try await manager.data(for: request)
        XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "moved")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, ["Bearer secret", nil])
    }

    func testABasicChallengeIsAnsweredWithTheTasksCredential() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/private", headers: ["Authorization": "Basic dXNlcjpwYXNz"]).reply(.text("inside"))
        stubs.on("GET", "/private").reply(.basicChallenge(realm: "vault"))
        let manager = manager(stubs)
        manager.responseSerializer = HTTPResponseSerializer()
        let credential = URLCredential(user: "user", password: "pass", persistence: .none)
        let response = try await manager.data(for: URLRequest(url: base.appendingPathComponent("private")), credential: credential)
        XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "inside")
        XCTAssertEqual(stubs.requests.map { $0.value(forHeader: "Authorization") }, [nil, "Basic dXNlcjpwYXNz"])
    }

    /// The `URLError` code a GET answered by `reply` fails with; `nil` when it succeeds.
    private func failureCode(of reply: StubReply) async throws -> URLError.Code? {
        let stubs = StubTransport()
        stubs.on("GET", "/answer").reply(reply)
        do {
            _ = try await manager(stubs).data(for: URLRequest(url: base.appendingPathComponent("answer")))
            return nil
        } catch let error as URLError {
            return error.code
        }
    }

    func testAFailureReachesTheCallerAsItsURLError() async throws {
        let code = try await failureCode(of: .failure(.cannotConnectToHost))
        XCTAssertEqual(code, .cannotConnectToHost)
    }

    func testABodyCutShortFailsAsALostConnection() async throws {
        let code = try await failureCode(of: StubReply.status(200, body: Data(count: 100)).cut(afterBodyBytes: 10))
        XCTAssertEqual(code, .networkConnectionLost)
    }

    func testARawReplyWhichOnlyAServerWritesFailsAsABadResponse() async throws {
        let code = try await failureCode(of: .raw([.send(Data("HTTP/1.1 200 OK\r\n\r\n".utf8)), .close]))
        XCTAssertEqual(code, .badServerResponse)
    }

    func testCancellingEndsADelayedReplyAtOnce() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/slow").reply(StubReply.text("late").delayed(by: 30))
        let manager = manager(stubs)
        let start = Date()
        let request = URLRequest(url: base.appendingPathComponent("slow"))
        let task = Task { try await manager.data(for: request) }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled request succeeded")
        } catch {
            XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        }
    }

    /// A task of `request` on `manager` (with `totalTimeout`), resumed, and what it completes
    /// with once it did.
    private func started(
        _ request: URLRequest, on manager: URLSessionManager, totalTimeout: TimeInterval? = nil
    ) throws -> (task: URLSessionTask, error: () -> (any Error)?) {
        let done = expectation(description: "completed")
        let error = Locked<(any Error)?>(nil)
        let task = try manager.dataTask(with: request) { _, _, failure in
            error.withLock { $0 = failure }
            done.fulfill()
        }
        if let totalTimeout { try manager.setTotalTimeout(totalTimeout, for: task) }
        task.resume()
        return (task, { [self] in
            wait(for: [done], timeout: 5)
            return error.withLock { $0 }
        })
    }

    /// The kind of the timeout `error` is (`idle`, `total`), failing the test when it is none.
    private func timeoutKind(_ error: (any Error)?, file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard let timeout = error as? URLError, timeout.code == .timedOut else {
            XCTFail("the request did not time out: \(String(describing: error))", file: file, line: line)
            return nil
        }
        return timeout.userInfo[TimeoutKind.errorUserInfoKey] as? String
    }

    func testADelayedReplyRunsOutTheIdleTimeoutAtItsEnd() throws {
        let clock = TestClock()
        let stubs = StubTransport(clock: clock)
        stubs.on("GET", "/slow").reply(StubReply.text("late").delayed(by: 30))
        var request = URLRequest(url: base.appendingPathComponent("slow"))
        request.timeoutInterval = 10
        let (task, error) = try started(request, on: manager(stubs))
        clock.advance(by: 9.999)
        XCTAssertEqual(task.state, .running)
        clock.advance(by: 0.001)
        XCTAssertEqual(task.state, .completed)
        XCTAssertEqual(timeoutKind(error()), "idle")
    }

    func testABodyDrippedWithinTheIdleTimeoutRunsOutTheTotalTimeoutAtItsEnd() throws {
        // A byte every 5 s never lets the 10 s idle timeout run out; the 60 s total does.
        let clock = TestClock()
        let stubs = StubTransport(clock: clock)
        stubs.on("GET", "/drip").reply(StubReply.status(200, body: Data(count: 40)).chunked(1, every: 5))
        var request = URLRequest(url: base.appendingPathComponent("drip"))
        request.timeoutInterval = 10
        let (task, error) = try started(request, on: manager(stubs), totalTimeout: 60)
        clock.advance(by: 59.999)
        XCTAssertEqual(task.state, .running)
        XCTAssertEqual(task.countOfBytesReceived, 12, "a byte at 0 s and every 5 s after")
        clock.advance(by: 0.001)
        XCTAssertEqual(task.state, .completed)
        XCTAssertEqual(timeoutKind(error()), "total")
    }

    func testABodyDrippedWithinTheTimeoutsArrivesWhole() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/drip").reply(StubReply.status(200, body: Data(count: 10)).chunked(1, every: 0.02))
        var request = URLRequest(url: base.appendingPathComponent("drip"))
        request.timeoutInterval = 0.5
        let response = try await manager(stubs).data(for: request)
        XCTAssertEqual(response.value, Data(count: 10))
    }

    func testTrailersArriveAfterTheBody() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/export").reply(StubReply.text("rows").chunked(2).withTrailers(["X-Checksum": "c-1"]))
        let streamed = try await manager(stubs).stream(for: URLRequest(url: base.appendingPathComponent("v1/export")))
        XCTAssertNil(streamed.body.trailers)
        let body = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(body, Data("rows".utf8))
        XCTAssertEqual(streamed.body.trailers, ["X-Checksum": "c-1"])
    }

    func testABodyCutShortHasNoTrailers() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/export").reply(StubReply.text("rows").withTrailers(["X-Checksum": "c-1"]).cut(afterBodyBytes: 2))
        let streamed = try await manager(stubs).stream(for: URLRequest(url: base.appendingPathComponent("v1/export")))
        do {
            _ = try await streamed.body.collect(upTo: 100)
            XCTFail("expected the cut to fail the body")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .networkConnectionLost, "\(error)")
        }
        XCTAssertNil(streamed.body.trailers)
    }

    func testABodyProducedAsItIsSentIsRecordedWithItsTrailers() async throws {
        let stubs = StubTransport()
        let route = stubs.on("PUT", "/v1/import").reply(.status(204))
        let chunks = AsyncStream<Data> { continuation in
            for index in 0..<3 { continuation.yield(Data("part \(index);".utf8)) }
            continuation.finish()
        }
        let body = StreamedRequestBody(trailers: { ["X-Checksum": "c-9"] }, once: chunks)
        var request = URLRequest(url: base.appendingPathComponent("v1/import"))
        request.httpMethod = "PUT"
        let streamed = try await manager(stubs).stream(for: request, body: body)
        XCTAssertEqual(streamed.statusCode, 204)
        XCTAssertEqual(route.requests.map(\.text), ["part 0;part 1;part 2;"])
        XCTAssertEqual(route.requests.first?.trailers, [RecordedRequest.Field(name: "X-Checksum", value: "c-9")])
    }

    func testABodyWhoseSourceFailsFailsTheTaskWithItsError() async throws {
        struct SourceFailed: Error {}
        let stubs = StubTransport()
        stubs.on("PUT", "/v1/import").reply(.status(204))
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(Data("part".utf8))
            continuation.finish(throwing: SourceFailed())
        }
        var request = URLRequest(url: base.appendingPathComponent("v1/import"))
        request.httpMethod = "PUT"
        do {
            _ = try await manager(stubs).upload(StreamedRequestBody(once: chunks), for: request, serializer: HTTPResponseSerializer())
            XCTFail("a failed body was sent as if whole")
        } catch SessionError.bodyStreamFailed(let underlying) {
            XCTAssertTrue(underlying is SourceFailed, "\(underlying)")
        }
        XCTAssertEqual(stubs.requests.count, 0, "nothing answered a body that never ended")
    }

    /// A sequence that counts in `pulls` the times the transport asked it for a chunk, then waits on `base`.
    private struct Counted: AsyncSequence, Sendable {
        typealias Element = Data
        let base: AsyncStream<Data>
        let pulls: Locked<Int>

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Data>.Iterator
            let pulls: Locked<Int>

            mutating func next() async -> Data? {
                pulls.withLock { $0 += 1 }
                return await base.next()
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), pulls: pulls) }
    }

    func testStreamedUploadsWaitingOnTheirBodyHoldNoWorkerAndEndWhenCancelled() throws {
        let stubs = StubTransport()
        stubs.on("PUT", "/v1/import").reply(.status(204))
        let manager = manager(stubs)
        let count = 100
        let pulls = Locked(0)
        let terminated = Locked(0)
        let ended = DispatchSemaphore(value: 0)
        var request = URLRequest(url: base.appendingPathComponent("v1/import"))
        request.httpMethod = "PUT"
        let uploads = (0..<count).map { [request] _ in
            let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
            producer.onTermination = { _ in terminated.withLock { $0 += 1 } }
            let body = StreamedRequestBody(once: Counted(base: chunks, pulls: pulls))
            return Task {
                _ = try? await manager.upload(body, for: request, serializer: HTTPResponseSerializer())
                ended.signal()
            }
        }
        defer { uploads.forEach { $0.cancel() } }
        // Each body is asked for bytes while the others wait on theirs, and the shared pool still
        // runs work (a read blocked on a body held a dispatch worker each, and queued the rest).
        var deadline = Date() + 10
        while pulls.withLock({ $0 }) < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(pulls.withLock { $0 }, count, "bodies asked for bytes")
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { ran.signal() }
        XCTAssertEqual(ran.wait(timeout: .now() + 10), .success, "the global queue ran nothing")
        uploads.forEach { $0.cancel() }
        for index in 0..<count {
            guard ended.wait(timeout: .now() + 10) == .success else { return XCTFail("only \(index) uploads ended") }
        }
        deadline = Date() + 5
        while terminated.withLock({ $0 }) < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(terminated.withLock { $0 }, count, "sequences ended")
    }

    func testWithABaseURLAPathMatchesOnlyUnderIt() async throws {
        let stubs = StubTransport(baseURL: URL(string: "https://api.example.com/v2/")!)
        let route = stubs.on("GET", "users/*").reply(.text("user"))
        let manager = URLSessionManager(transport: stubs.transport)
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        let user = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/v2/users/7")!))
        XCTAssertEqual(user.value, Data("user".utf8))
        XCTAssertEqual(route.description, "GET https://api.example.com/v2/users/*")
        for other in ["https://other.example.com/v2/users/7", "https://api.example.com:8443/v2/users/7", "https://api.example.com/v1/users/7"] {
            do {
                _ = try await manager.data(for: URLRequest(url: URL(string: other)!))
                XCTFail("\(other) matched a route under another base")
            } catch is StubError {}
        }
    }

    func testManagersStubbingTheSameURLDifferentlyDoNotSeeEachOther() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                let stubs = StubTransport()
                stubs.on("GET", "/v1/value").reply(.text("\(index)"))
                let manager = HTTPSessionManager(baseURL: URL(string: "https://api.example.com"), transport: stubs.transport)
                manager.responseSerializer = HTTPResponseSerializer()
                group.addTask {
                    defer { manager.invalidateSession(cancelingTasks: true) }
                    let response = try await manager.data(for: URLRequest(url: URL(string: "https://api.example.com/v1/value")!))
                    XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "\(index)")
                    XCTAssertEqual(stubs.requests.count, 1)
                }
            }
            try await group.waitForAll()
        }
    }
}
