import AFNetworking
import AFNetworkingTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The loopback test server driven by a real manager on the libcurl transport: replies as
/// scripted, requests recorded as sent, connections kept alive, and the faults only a socket
/// shows (a stall, a cut, a close).
final class TestServerTests: XCTestCase {
    private func server(_ handler: @escaping TestServer.Handler) throws -> TestServer {
        let server = try TestServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    private func manager() -> URLSessionManager {
        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    func testARequestGetsItsReplyAndIsRecordedAsSent() async throws {
        let server = try server { _ in .text("hello") }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("greeting"))
        request.setValue("yes", forHTTPHeaderField: "X-Test")
        let response = try await manager().data(for: request)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "hello")
        let recorded = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(recorded.method, "GET")
        XCTAssertEqual(recorded.path, "/greeting")
        XCTAssertEqual(recorded.value(forHeader: "x-test"), "yes")
        XCTAssertEqual(server.requests.count, 1)
    }

    func testABodyIsRecordedInItsExactBytes() async throws {
        let server = try server { _ in .status(204) }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("items"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"name":"a"}"#.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        _ = try await manager().data(for: request)
        XCTAssertEqual(server.requests.first?.body, Data(#"{"name":"a"}"#.utf8))
        XCTAssertEqual(server.requests.first?.value(forHeader: "Content-Length"), "12")
    }

    func testSequentialRequestsShareOneKeptAliveConnection() async throws {
        let server = try server { request in .text(request.path) }
        let manager = manager()
        for path in ["a", "b", "c"] {
            let response = try await manager.data(for: URLRequest(url: server.baseURL.appendingPathComponent(path)))
            XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "/\(path)")
        }
        XCTAssertEqual(server.requests.map(\.connection), [1, 1, 1])
        XCTAssertEqual(server.connectionCount, 1)
    }

    func testAStalledReplyEndsInTheRequestsTimeout() async throws {
        let server = try server { _ in ServerReply.text("late").delayed(by: 5) }
        var request = URLRequest(url: server.baseURL)
        request.timeoutInterval = 0.5
        let start = Date()
        do {
            _ = try await manager().data(for: request)
            XCTFail("a stalled reply completed")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .timedOut)
            XCTAssertEqual(error.userInfo[TimeoutKind.errorUserInfoKey] as? String, "idle")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 4)
    }

    func testABodyCutShortFailsTheTask() async throws {
        let server = try server { _ in ServerReply.status(200, body: Data(repeating: 0x61, count: 1000)).cut(afterBodyBytes: 10) }
        do {
            _ = try await manager().data(for: URLRequest(url: server.baseURL))
            XCTFail("a cut body completed")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .networkConnectionLost)
        }
    }

    func testADrippedBodyArrivesWhole() async throws {
        let body = Data((0..<64).map { UInt8($0) })
        let server = try server { _ in ServerReply.status(200, body: body).dripped(16, every: 0.02) }
        let response = try await manager().data(for: URLRequest(url: server.baseURL))
        XCTAssertEqual(response.value, body)
    }

    func testAStubsReplyServesTheServerToo() async throws {
        let reply = ServerReply(try StubReply.json(["id": 9]))
        let server = try server { _ in reply }
        let response = try await manager().data(for: URLRequest(url: server.baseURL))
        XCTAssertEqual(response.value, Data(#"{"id":9}"#.utf8))
        XCTAssertEqual(response.response.value(forHTTPHeaderField: "Content-Type"), "application/json")
    }

    func testTrailersArriveAfterTheBody() async throws {
        let server = try server { _ in ServerReply.text("counted").withTrailers(["X-Count": "7"]) }
        let streamed = try await manager().stream(for: URLRequest(url: server.baseURL))
        let body = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(body, Data("counted".utf8))
        XCTAssertEqual(streamed.body.trailers, ["X-Count": "7"])
    }

    func testAStubTablesRoutesAnswerTheServersRequests() async throws {
        let stubs = StubTransport()
        let route = stubs.on("GET", "/v1/status").replies([.status(503), .text("ready")])
        let server = try server(stubs.serverHandler)
        let manager = manager()
        let url = server.baseURL.appendingPathComponent("v1/status")
        let anyStatus = HTTPResponseSerializer(acceptableStatusCodes: nil)
        let first = try await manager.response(for: URLRequest(url: url), serializer: anyStatus)
        let second = try await manager.response(for: URLRequest(url: url), serializer: anyStatus)
        XCTAssertEqual([first.statusCode, second.statusCode], [503, 200])
        XCTAssertEqual(second.value, Data("ready".utf8))
        XCTAssertEqual(route.requests.map(\.connection), [1, 1], "recorded as the server received them")
        XCTAssertEqual(server.requests.count, 2)
    }

    func testARequestNoStubRouteMatchesIsAnswered404NamingIt() async throws {
        let stubs = StubTransport()
        stubs.on("GET", "/v1/status")
        let server = try server(stubs.serverHandler)
        let response = try await manager().response(
            for: URLRequest(url: server.baseURL.appendingPathComponent("v1/other")), serializer: HTTPResponseSerializer(acceptableStatusCodes: nil))
        XCTAssertEqual(response.statusCode, 404)
        XCTAssertEqual(String(decoding: response.value ?? Data(), as: UTF8.self),
                       "No stub matches GET \(server.baseURL.absoluteString)/v1/other (the nearest routes: GET /v1/status).")
    }

    /// Sends `request` on a new connection to `server` and returns all it gets back until the
    /// server closes the connection.
    private func exchange(_ request: String, with server: TestServer) throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(server.port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0)
        _ = request.withCString { send(descriptor, $0, strlen($0), 0) }
        var reply = Data()
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            reply.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: reply, as: UTF8.self)
    }

    func testAMalformedRequestIsAnswered400AndTheConnectionClosed() throws {
        let server = try server { _ in .text("never") }
        XCTAssertEqual(try exchange("NOT HTTP\r\n\r\n", with: server), "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(server.requests.isEmpty)
    }

    /// Numbers a client sends are never used in unchecked arithmetic: a length or a chunk size
    /// past `Int.max` is answered 400, and the server (and the test process hosting it) goes
    /// on serving.
    func testALengthOrAChunkSizePastIntMaxIsAnswered400AndTheServerGoesOn() throws {
        let server = try server { _ in .text("still here") }
        let refused = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        XCTAssertEqual(try exchange("POST / HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\n", with: server), refused)
        XCTAssertEqual(try exchange("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", with: server), refused)
        let reply = try exchange("GET /next HTTP/1.1\r\nConnection: close\r\n\r\n", with: server)
        XCTAssertTrue(reply.hasPrefix("HTTP/1.1 200 OK\r\n"), reply)
        XCTAssertTrue(reply.hasSuffix("\r\n\r\nstill here"), reply)
        XCTAssertEqual(server.requests.map(\.target), ["/next"])
    }

    func testAServerOnAUnixDomainSocketAnswers() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("afn-test-\(UUID().uuidString.prefix(8)).sock").path
        let server = try TestServer(unixSocketPath: path) { _ in .text("over the socket") }
        addTeardownBlock { server.stop() }
        let response = try await manager().data(for: URLRequest(url: server.baseURL.appendingPathComponent("v1/info")))
        XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "over the socket")
        XCTAssertEqual(server.requests.first?.path, "/v1/info")
    }

    func testServersRunSideBySideWithoutSeeingEachOthersRequests() async throws {
        let servers = try (0..<4).map { index in try server { _ in .text("\(index)") } }
        let manager = manager()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, server) in servers.enumerated() {
                group.addTask {
                    let response = try await manager.data(for: URLRequest(url: server.baseURL))
                    XCTAssertEqual(String(decoding: response.value, as: UTF8.self), "\(index)")
                }
            }
            try await group.waitForAll()
        }
        XCTAssertEqual(servers.map(\.requests.count), [1, 1, 1, 1])
    }

    func testStoppingTheServerClosesAWaitingClientsConnection() async throws {
        let server = try server { _ in ServerReply.text("never").delayed(by: 30) }
        Task {
            try await Task.sleep(nanoseconds: 300_000_000)
            server.stop()
        }
        do {
            _ = try await manager().data(for: URLRequest(url: server.baseURL))
            XCTFail("a stopped server answered")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .networkConnectionLost)
        }
    }
}
