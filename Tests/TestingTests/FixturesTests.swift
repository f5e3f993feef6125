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
}
