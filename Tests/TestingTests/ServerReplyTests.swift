@testable import AFNetworkingTesting
import Foundation
import XCTest

/// The bytes and pauses a test server writes for each kind of reply, in exact bytes.
final class ServerReplyTests: XCTestCase {
    private func text(_ steps: [ServerReply.Step]) -> [String] {
        steps.map {
            switch $0 {
            case .send(let bytes): String(decoding: bytes, as: UTF8.self)
            case .pause(let seconds): "pause \(seconds)"
            case .close: "close"
            }
        }
    }

    func testAStatusReplyIsFramedByItsLength() {
        let steps = ServerReply.status(201, fields: ["X-A": "1"], body: Data("made".utf8)).steps(forMethod: "POST")
        XCTAssertEqual(text(steps), ["HTTP/1.1 201 Created\r\nX-A: 1\r\nContent-Length: 4\r\n\r\n", "made"])
    }

    func testAHeadReplyHasNoBody() {
        XCTAssertEqual(text(ServerReply.text("hello").steps(forMethod: "HEAD")),
                       ["HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\n"])
    }

    func testANoContentReplyHasNeitherBodyNorLength() {
        XCTAssertEqual(text(ServerReply.status(204).steps(forMethod: "DELETE")), ["HTTP/1.1 204 No Content\r\n\r\n"])
    }

    func testADrippedBodyIsWrittenInChunksWithPausesBetween() {
        let steps = ServerReply.status(200, body: Data("abcde".utf8)).dripped(2, every: 0.1).steps(forMethod: "GET")
        XCTAssertEqual(text(steps), ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "ab", "pause 0.1", "cd", "pause 0.1", "e"])
    }

    func testACutReplyClosesAfterItsBytes() {
        let steps = ServerReply.status(200, body: Data("abcde".utf8)).cut(afterBodyBytes: 2).steps(forMethod: "GET")
        XCTAssertEqual(text(steps), ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "ab", "close"])
    }

    func testADelayedRawReplyWaitsThenWritesAsGiven() {
        let steps = ServerReply.raw([.send(Data("HTTP/1.1 200 OK\r\n".utf8)), .close]).delayed(by: 2).steps(forMethod: "GET")
        XCTAssertEqual(text(steps), ["pause 2.0", "HTTP/1.1 200 OK\r\n", "close"])
    }

    func testAJSONReplyCarriesItsType() throws {
        let steps = try ServerReply.json(["id": 1]).steps(forMethod: "GET")
        XCTAssertEqual(text(steps), ["HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\n", "{\"id\":1}"])
    }

    func testAStubsReplyIsWrittenWithItsChunksAndCut() {
        let stub = StubReply.status(200, fields: ["X-A": "1"], body: Data("abcdef".utf8)).chunked(2, every: 0.5).cut(afterBodyBytes: 4).delayed(by: 1)
        XCTAssertEqual(text(ServerReply(stub).steps(forMethod: "GET")),
                       ["pause 1.0", "HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 6\r\n\r\n", "ab", "pause 0.5", "cd", "close"])
    }

    func testAStubsFailureIsAConnectionClosedWithoutAReply() {
        XCTAssertEqual(text(ServerReply(StubReply.failure(.networkConnectionLost)).steps(forMethod: "GET")), ["close"])
    }

    func testADelayedFailureWaitsThenCloses() {
        XCTAssertEqual(text(StubReply.failure(.timedOut).delayed(by: 3).steps(forMethod: "GET")), ["pause 3.0", "close"])
    }

    func testDrippingIsChunking() {
        let reply = ServerReply.status(200, body: Data("abcde".utf8))
        XCTAssertEqual(text(reply.dripped(2, every: 0.1).steps(forMethod: "GET")), text(reply.chunked(2, every: 0.1).steps(forMethod: "GET")))
        XCTAssertEqual(reply.dripped(2, every: 0.1).drip?.size, 2)
    }

    func testAHeadReplyWithTrailersHasNeitherBodyNorLastChunk() {
        XCTAssertEqual(text(ServerReply.text("hi").withTrailers(["X-Sum": "1"]).steps(forMethod: "HEAD")),
                       ["HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n"])
    }

    func testAReplyWithTrailersIsChunkedAndEndsWithThem() {
        let steps = ServerReply.status(200, body: Data("abcde".utf8)).dripped(3, every: 0.1).withTrailers(["X-Sum": "15"]).steps(forMethod: "GET")
        XCTAssertEqual(text(steps), ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "3\r\nabc\r\n", "pause 0.1", "2\r\nde\r\n",
                                     "0\r\nX-Sum: 15\r\n\r\n"])
    }

    func testACutReplyWithTrailersClosesWithoutTheLastChunk() {
        let steps = ServerReply.status(200, body: Data("abcde".utf8)).withTrailers(["X-Sum": "15"]).cut(afterBodyBytes: 2).steps(forMethod: "GET")
        XCTAssertEqual(text(steps), ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", "2\r\nab\r\n", "close"])
    }
}

