import AFLocking
import AFNetworking
import AFNetworkingTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Exchanges recorded from a real server once, with secrets redacted, and replayed as stubs.
final class FixturesTests: XCTestCase {
    private func directory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("afn-fixtures-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private func manager(_ transport: HTTPTransport = .libcurl) -> URLSessionManager {
        let manager = URLSessionManager(transport: transport)
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testARecordedExchangeIsReplayedAsAStub() async throws {
        let server = try TestServer { _ in .status(200, fields: ["Content-Type": "application/json", "X-Served": "1"], body: Data(#"{"id":7}"#.utf8)) }
        defer { server.stop() }
        let fixtures = directory()
        var request = URLRequest(url: server.baseURL.appendingPathComponent("v1/items/7"))
        request.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        try await Fixtures.record(request, named: "item-7", with: manager(), to: fixtures)

        let stubs = StubTransport()
        let routes = try stubs.replay(fixturesAt: fixtures)
        XCTAssertEqual(routes.map(\.description), ["GET \(server.baseURL.absoluteString)/v1/items/7"])
        server.stop()
        let replayed = try await manager(stubs.transport).data(for: URLRequest(url: server.baseURL.appendingPathComponent("v1/items/7")))
        XCTAssertEqual(replayed.statusCode, 200)
        XCTAssertEqual(replayed.value, Data(#"{"id":7}"#.utf8))
        XCTAssertEqual(replayed.response.value(forHTTPHeaderField: "X-Served"), "1")
    }

    func testSecretsAreRedactedAndTheFilesArePrivate() async throws {
        let server = try TestServer { _ in .status(200, fields: ["Set-Cookie": "session=abc"], body: Data("ok".utf8)) }
        defer { server.stop() }
        let fixtures = directory()
        var request = URLRequest(url: server.baseURL.appendingPathComponent("login").appending(queryItems: [URLQueryItem(name: "api_key", value: "k-123")]))
        request.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        try await Fixtures.record(request, named: "login", with: manager(), to: fixtures)
        let file = fixtures.appendingPathComponent("login/exchange.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertFalse(text.contains("secret-token"), text)
        XCTAssertFalse(text.contains("k-123"), text)
        XCTAssertFalse(text.contains("session=abc"), text)
        XCTAssertTrue(text.contains("<redacted>"), text)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: fixtures.path)
        XCTAssertEqual((folder[.posixPermissions] as? NSNumber)?.intValue, 0o700)
    }

    /// Stubs with no route, recording every request under `fixtures`.
    private func recordingStubs(into fixtures: URL) -> StubTransport {
        let stubs = StubTransport()
        stubs.record(unmatchedTo: fixtures)
        return stubs
    }

    /// Stubs answering by the fixtures under `fixtures`.
    private func replayingStubs(of fixtures: URL) throws -> StubTransport {
        let stubs = StubTransport()
        try stubs.replay(fixturesAt: fixtures)
        return stubs
    }

    /// The fixture folders under `directory`, by name.
    private func folders(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    private func text(_ manager: URLSessionManager, _ url: URL) async throws -> String {
        String(decoding: try await manager.data(for: URLRequest(url: url)).value, as: UTF8.self)
    }

    func testUnmatchedRequestsAreRecordedAndThenReplayedWithoutTheServer() async throws {
        let server = try TestServer { request in .text("served \(request.target)") }
        defer { server.stop() }
        let fixtures = directory()
        let item = server.baseURL.appendingPathComponent("v1/items/7")
        let page = server.baseURL.appendingPathComponent("v1/items").appending(queryItems: [URLQueryItem(name: "page", value: "2")])
        let recording = recordingStubs(into: fixtures)
        let recorded = manager(recording.transport)
        let first = try await text(recorded, item)
        let second = try await text(recorded, page)
        XCTAssertEqual([first, second], ["served /v1/items/7", "served /v1/items?page=2"])
        XCTAssertEqual(try folders(fixtures), ["0001-GET-v1-items-7", "0002-GET-v1-items"])
        server.stop()

        let replaying = try replayingStubs(of: fixtures)
        replaying.record(unmatchedTo: fixtures)
        let replayed = manager(replaying.transport)
        let again = try await text(replayed, item)
        let pageAgain = try await text(replayed, page)
        XCTAssertEqual([again, pageAgain], [first, second])
        XCTAssertEqual(server.requests.count, 2, "the replay reached no server")
        XCTAssertEqual(try folders(fixtures).count, 2, "nothing recorded again")
    }

    func testAFirstRecordingMakesTheMissingFoldersPrivately() async throws {
        let server = try TestServer { _ in .text("served") }
        defer { server.stop() }
        let root = directory()
        let fixtures = root.appendingPathComponent("Fixtures/Users")
        let recorded = manager(recordingStubs(into: fixtures).transport)
        let served = try await text(recorded, server.baseURL.appendingPathComponent("users"))
        XCTAssertEqual(served, "served")
        XCTAssertEqual(try folders(fixtures), ["0001-GET-users"])
        for folder in [root, root.appendingPathComponent("Fixtures"), fixtures] {
            let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int)
            XCTAssertEqual(mode & 0o777, 0o700, folder.path)
        }
    }

    func testAFolderThatCannotBeMadeIsAnErrorNamingItsPath() async throws {
        let server = try TestServer { _ in .text("served") }
        defer { server.stop() }
        let file = directory()
        try Data().write(to: file)
        let fixtures = file.appendingPathComponent("Fixtures/Users")
        let recorded = manager(recordingStubs(into: fixtures).transport)
        do {
            _ = try await text(recorded, server.baseURL.appendingPathComponent("users"))
            XCTFail("recorded under a file")
        } catch {
            XCTAssertTrue("\(error)".contains(file.path), "\(error)")
            XCTAssertFalse(error.localizedDescription.contains("permission"), error.localizedDescription)
        }
    }

    func testAFixtureWithAQueryAnswersOnlyThatQuery() async throws {
        let server = try TestServer { request in .text("served \(request.target)") }
        defer { server.stop() }
        let fixtures = directory()
        let list = server.baseURL.appendingPathComponent("v1/items")
        let page = list.appending(queryItems: [URLQueryItem(name: "page", value: "2")])
        let recording = recordingStubs(into: fixtures)
        let recorded = manager(recording.transport)
        _ = try await text(recorded, list)
        _ = try await text(recorded, page)
        server.stop()

        let replaying = try replayingStubs(of: fixtures)
        let replayed = manager(replaying.transport)
        let pageText = try await text(replayed, page)
        let listText = try await text(replayed, list)
        XCTAssertEqual(pageText, "served /v1/items?page=2")
        XCTAssertEqual(listText, "served /v1/items")
    }

    func testARepeatedRequestIsReplayedInTheOrderRecorded() async throws {
        let calls = Locked(0)
        let server = try TestServer { _ in .text("reply \(calls.withLock { $0 += 1; return $0 })") }
        defer { server.stop() }
        let fixtures = directory()
        let url = server.baseURL.appendingPathComponent("v1/status")
        let recording = recordingStubs(into: fixtures)
        let recorded = manager(recording.transport)
        _ = try await text(recorded, url)
        _ = try await text(recorded, url)
        server.stop()

        let replaying = try replayingStubs(of: fixtures)
        let replayed = manager(replaying.transport)
        var texts: [String] = []
        for _ in 0..<3 { texts.append(try await text(replayed, url)) }
        XCTAssertEqual(texts, ["reply 1", "reply 2", "reply 2"])
    }

    func testARedirectIsRecordedAsItsOwnExchangeAndFollowedByTheManagerUnderTest() async throws {
        let server = try TestServer { request in request.path == "/old" ? ServerReply.status(302, fields: ["Location": "/new"]) : .text("moved here") }
        defer { server.stop() }
        let fixtures = directory()
        let recording = recordingStubs(into: fixtures)
        let body = try await text(manager(recording.transport), server.baseURL.appendingPathComponent("old"))
        XCTAssertEqual(body, "moved here")
        XCTAssertEqual(recording.requests.map(\.path), ["/old", "/new"])
        XCTAssertEqual(try folders(fixtures), ["0001-GET-old", "0002-GET-new"])
        let redirect = try String(contentsOf: fixtures.appendingPathComponent("0001-GET-old/exchange.json"), encoding: .utf8)
        XCTAssertTrue(redirect.contains(#""status" : 302"#), redirect)
    }

    func testAnErrorStatusIsRecordedAndReplayedAsIs() async throws {
        let server = try TestServer { _ in .text("no such item", status: 404) }
        defer { server.stop() }
        let fixtures = directory()
        let recording = recordingStubs(into: fixtures)
        let url = server.baseURL.appendingPathComponent("v1/items/9")
        let live = try await manager(recording.transport).response(for: URLRequest(url: url), serializer: HTTPResponseSerializer(acceptableStatusCodes: nil))
        server.stop()
        let replaying = try replayingStubs(of: fixtures)
        let replayed = try await manager(replaying.transport).response(for: URLRequest(url: url), serializer: HTTPResponseSerializer(acceptableStatusCodes: nil))
        XCTAssertEqual([live.statusCode, replayed.statusCode], [404, 404])
        XCTAssertEqual(replayed.value, Data("no such item".utf8))
    }

    func testSecretsAreRedactedInRecordedExchanges() async throws {
        let server = try TestServer { _ in .status(200, fields: ["Set-Cookie": "session=abc"], body: Data("ok".utf8)) }
        defer { server.stop() }
        let fixtures = directory()
        let recording = recordingStubs(into: fixtures)
        var request = URLRequest(url: server.baseURL.appendingPathComponent("login").appending(queryItems: [URLQueryItem(name: "api_key", value: "k-123")]))
        request.setValue("Bearer secret-token", forHTTPHeaderField: "Authorization")
        _ = try await manager(recording.transport).data(for: request)
        let text = try String(contentsOf: fixtures.appendingPathComponent("0001-GET-login/exchange.json"), encoding: .utf8)
        for secret in ["secret-token", "k-123", "session=abc"] { XCTAssertFalse(text.contains(secret), text) }
        let attributes = try FileManager.default.attributesOfItem(atPath: fixtures.appendingPathComponent("0001-GET-login/body").path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    }

    func testAnExchangeThatCannotBeMadeFailsTheTaskAndRecordsNothing() async throws {
        let server = try TestServer { _ in .status(200) }
        let url = server.baseURL.appendingPathComponent("v1/items")
        server.stop()
        let fixtures = directory()
        let recording = recordingStubs(into: fixtures)
        do {
            _ = try await manager(recording.transport).data(for: URLRequest(url: url))
            XCTFail("expected the connection to be refused")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .cannotConnectToHost)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixtures.path))
    }

    func testCancellingWhileARecordingWaitsEndsTheTaskAtOnceAndOnce() async throws {
        let server = try TestServer { _ in ServerReply.text("late").delayed(by: 1) }
        defer { server.stop() }
        let recording = recordingStubs(into: directory())
        let manager = manager(recording.transport)
        let recorder = CompletionCounter()
        let task = try manager.dataTask(with: URLRequest(url: server.baseURL.appendingPathComponent("slow")), completionHandler: recorder.handler)
        manager.resume(task)
        try await Task.sleep(nanoseconds: 200_000_000)
        let cancelled = Date()
        task.cancel()
        await fulfillment(of: [recorder.expectation], timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 0.5)
        XCTAssertEqual((recorder.errors.first as? URLError)?.code, .cancelled)
        try await Task.sleep(nanoseconds: 1_200_000_000)
        XCTAssertEqual(recorder.errors.count, 1, "the answer that came after the cancel was dropped")
    }
}

/// The completions of one task, counted.
private final class CompletionCounter: Sendable {
    let expectation = XCTestExpectation(description: "completed")
    private let completions = Locked<[(any Error)?]>([])

    var handler: URLSessionManager.CompletionHandler {
        { [self] _, _, error in
            completions.withLock { $0.append(error) }
            expectation.fulfill()
        }
    }

    var errors: [(any Error)?] { completions.withLock { $0 } }
}

