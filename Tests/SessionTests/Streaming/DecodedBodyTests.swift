import AFNetworkingTesting
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A streamed body decoded as lines and as JSON Lines against the loopback test server.
final class DecodedBodyTests: XCTestCase {
    private struct Row: Codable, Equatable, Sendable {
        var id: Int
        var name: String
    }

    private func stream(_ reply: ServerReply, transport: HTTPTransport = .libcurl) async throws -> StreamedResponse {
        let server = try TestServer { _ in reply }
        let manager = URLSessionManager(transport: transport)
        addTeardownBlock {
            manager.invalidateSession(cancelingTasks: true)
            server.stop()
        }
        return try await manager.stream(for: URLRequest(url: server.baseURL))
    }

    func testJSONLinesDecodeAsTheyArriveAndBlankLinesAreSkipped() async throws {
        let text = #"{"id":1,"name":"a"}"# + "\n\n" + #"{"id":2,"name":"b"}"# + "\r\n" + #"{"id":3,"name":"c"}"#
        let streamed = try await stream(ServerReply.status(200, body: Data(text.utf8)).dripped(7, every: 0.01))
        var rows: [Row] = []
        for try await row in streamed.body.jsonLines(of: Row.self) { rows.append(row) }
        XCTAssertEqual(rows, [Row(id: 1, name: "a"), Row(id: 2, name: "b"), Row(id: 3, name: "c")])
    }

    func testAJSONLineThatDoesNotDecodeEndsTheSequenceWithTheDecodingError() async throws {
        let streamed = try await stream(.status(200, body: Data("{\"id\":1,\"name\":\"a\"}\n{\"id\":\"x\"}\n{\"id\":3,\"name\":\"c\"}\n".utf8)))
        var rows: [Row] = []
        do {
            for try await row in streamed.body.jsonLines(of: Row.self) { rows.append(row) }
            XCTFail("a bad line decoded")
        } catch is DecodingError {}
        XCTAssertEqual(rows, [Row(id: 1, name: "a")])
    }

    func testTextLinesKeepTheLastLineWithoutAnEnding() async throws {
        let streamed = try await stream(.text("one\ntwo\n\nthree"))
        var lines: [String] = []
        for try await line in streamed.body.lines() { lines.append(line) }
        XCTAssertEqual(lines, ["one", "two", "", "three"])
    }

    func testALineOverTheLimitThrowsInsteadOfBuffering() async throws {
        let streamed = try await stream(.status(200, body: Data(count: 2 << 20)))
        do {
            for try await _ in streamed.body.lines(maximumLength: 1 << 20) {}
            XCTFail("a 2 MiB line was accepted")
        } catch let error as StreamingError {
            XCTAssertEqual(error, .lineTooLong(limit: 1 << 20))
        }
    }

    func testURLSessionsOwnProtocolStreamsTooWithoutBackPressure() async throws {
        let streamed = try await stream(ServerReply.text("a\nb\nc\n").dripped(2, every: 0.05), transport: .urlSession)
        var lines: [String] = []
        for try await line in streamed.body.lines() { lines.append(line) }
        XCTAssertEqual(lines, ["a", "b", "c"])
    }

    func testCollectingPastItsLimitThrowsTheLimitInsteadOfGrowing() async throws {
        let streamed = try await stream(.status(200, body: Data(count: 100_000)))
        do {
            _ = try await streamed.body.collect(upTo: 50_000)
            XCTFail("a body over the limit was collected")
        } catch let error as SessionError {
            guard case .responseLimitExceeded(.bodySize(50_000), nil, nil) = error else { return XCTFail("\(error)") }
        }
    }
}
