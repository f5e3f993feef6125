import AFSecurity
import AFSerialization
import AFSession
import Foundation
import TestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A streamed request and its streamed response in one exchange, both open at once: the
/// response's head and each echoed chunk arrive while the request body is still being produced
/// (the fault server's `/duplex/0` echoes each piece as it reads it), over HTTP/1.1 and, through
/// nginx, over HTTP/2.
final class FullDuplexTests: XCTestCase {
    private func manager(_ version: HTTPVersion = .automatic) throws -> URLSessionManager {
        let manager = URLSessionManager()
        manager.httpVersion = version
        try manager.setSecurityPolicy(SecurityPolicy(pinningMode: .none, anchorCertificates: [TestSupport.Fixtures.certificate("root-ca")]))
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func post(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        // A wedged exchange fails in seconds rather than at the default minute.
        request.timeoutInterval = 10
        return request
    }

    /// Sends `count` chunks one at a time, each only after the echo of the one before has been
    /// read from the response, and returns the response, the echoed bytes and its trailers. The
    /// first chunk goes before the head is awaited: over HTTP/2 on TLS, libcurl 7.88 reads no
    /// response while the body has produced nothing yet (README, "Streaming responses").
    private func interleave(_ count: Int, to url: URL, on manager: URLSessionManager) async throws
    -> (response: StreamedResponse, echoed: String, trailers: [String: String]?) {
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        let message = { (index: Int) in "ping-\(index);" }
        producer.yield(Data(message(0).utf8))
        let streamed = try await manager.stream(for: post(url), body: StreamedRequestBody(once: chunks))
        var iterator = streamed.body.makeAsyncIterator()
        var echoed = ""
        for index in 0..<count {
            if index > 0 { producer.yield(Data(message(index).utf8)) }
            while !echoed.hasSuffix(message(index)) {
                guard let chunk = try await iterator.next() else {
                    XCTFail("the response ended before the echo of \(message(index))")
                    return (streamed, echoed, nil)
                }
                echoed += String(decoding: chunk, as: UTF8.self)
            }
        }
        producer.finish()
        while let chunk = try await iterator.next() { echoed += String(decoding: chunk, as: UTF8.self) }
        return (streamed, echoed, streamed.body.trailers)
    }

    private static func expected(_ count: Int) -> String {
        (0..<count).map { "ping-\($0);" }.joined()
    }

    func testTheHeadArrivesBeforeTheRequestBodyHasAByte() async throws {
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        let streamed = try await manager().stream(for: post(try FaultServer.url("/duplex/0")), body: StreamedRequestBody(once: chunks))
        XCTAssertEqual(streamed.statusCode, 200)
        producer.yield(Data("late".utf8))
        producer.finish()
        let echoed = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(echoed, Data("late".utf8))
    }

    func testTheHeadArrivesWhileTheRequestBodyIsStillOpen() async throws {
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        producer.yield(Data("first".utf8))
        let streamed = try await manager().stream(for: post(try FaultServer.url("/duplex/0")), body: StreamedRequestBody(once: chunks))
        XCTAssertEqual(streamed.statusCode, 200)
        var iterator = streamed.body.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first.map { String(decoding: $0, as: UTF8.self) }, "first")
        producer.finish()
        let rest = try await iterator.next()
        XCTAssertNil(rest)
    }

    func testInterleavedEchoOverHTTP11() async throws {
        let (streamed, echoed, trailers) = try await interleave(50, to: try FaultServer.url("/duplex/0"), on: try manager())
        XCTAssertEqual(streamed.statusCode, 200)
        XCTAssertEqual(echoed, Self.expected(50))
        XCTAssertEqual(trailers, ["X-Received-Bytes": "\(Self.expected(50).utf8.count)"])
    }

    func testInterleavedEchoOverHTTP2() async throws {
        let server = try HTTP2Server.running()
        let marker = UUID().uuidString
        let url = try XCTUnwrap(URL(string: server.tlsURL.absoluteString + "/fault/duplex/0?probe=\(marker)"))
        let (streamed, echoed, _) = try await interleave(50, to: url, on: try manager())
        XCTAssertEqual(streamed.statusCode, 200)
        XCTAssertEqual(echoed, Self.expected(50))
        XCTAssertEqual(server.requests(containing: marker).map(\.protocol), ["HTTP/2.0"])
    }

    func testInterleavedEchoOverHTTP2WithPriorKnowledge() async throws {
        let server = try HTTP2Server.running()
        let url = try XCTUnwrap(URL(string: server.cleartextURL.absoluteString + "/fault/duplex/0"))
        let (streamed, echoed, _) = try await interleave(20, to: url, on: try manager(.http2PriorKnowledge))
        XCTAssertEqual(streamed.statusCode, 200)
        XCTAssertEqual(echoed, Self.expected(20))
    }

    func testTheResponseEndIsDeliveredWhileTheRequestBodyIsStillOpen() async throws {
        // The server ends its response after echoing 1,000 pieces; the body is finished only
        // once the response's end has been read, as HTTP clients' speak-interleave case does.
        let count = 1000
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        let message = { (index: Int) in "ping-\(index);" }
        producer.yield(Data(message(0).utf8))
        let streamed = try await manager().stream(for: post(try FaultServer.url("/duplex/\(count)")), body: StreamedRequestBody(once: chunks))
        var iterator = streamed.body.makeAsyncIterator()
        var echoed = ""
        for index in 0..<count {
            if index > 0 { producer.yield(Data(message(index).utf8)) }
            while !echoed.hasSuffix(message(index)) {
                let chunk = try await iterator.next()
                echoed += String(decoding: try XCTUnwrap(chunk, "the response ended before the echo of \(message(index))"), as: UTF8.self)
            }
        }
        let end = try await iterator.next()
        producer.finish()
        XCTAssertNil(end)
        XCTAssertEqual(echoed, Self.expected(count))
        XCTAssertEqual(streamed.body.trailers, ["X-Received-Bytes": "\(Self.expected(count).utf8.count)"])
    }

    func testRequestTrailersArriveAndResponseTrailersComeBack() async throws {
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        let body = StreamedRequestBody(trailers: { ["Checksum": "sha256=abc"] }, once: chunks)
        producer.yield(Data("payload".utf8))
        let streamed = try await manager().stream(for: post(try FaultServer.url("/duplex/0")), body: body)
        producer.finish()
        let echoed = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(echoed, Data("payload".utf8))
        XCTAssertEqual(streamed.body.trailers, ["X-Received-Bytes": "7", "X-Echo-Checksum": "sha256=abc"])
    }

    func testABodyWithTrailersGoesOverHTTP11WhereHTTP2IsOffered() async throws {
        // libcurl 7.88 sends request trailers in HTTP/1.1's chunked framing only.
        let server = try HTTP2Server.running()
        let marker = UUID().uuidString
        let url = try XCTUnwrap(URL(string: server.tlsURL.absoluteString + "/fault/duplex/0?probe=\(marker)"))
        let (chunks, producer) = AsyncStream.makeStream(of: Data.self)
        producer.yield(Data("payload".utf8))
        producer.finish()
        let streamed = try await manager().stream(for: post(url), body: StreamedRequestBody(trailers: { ["X-Done": "yes"] }, once: chunks))
        let echoed = try await streamed.body.collect(upTo: 100)
        XCTAssertEqual(echoed, Data("payload".utf8))
        XCTAssertEqual(server.requests(containing: marker).map(\.protocol), ["HTTP/1.1"])
    }

    func testALargeBodyIsEchoedWholeWhileItIsSent() async throws {
        // 8 MiB both ways at once: more than either side's buffers and the receive window, so
        // the exchange completes only if sending and receiving go on together.
        let piece = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let body = StreamedRequestBody(restartingWith: { AsyncStream { continuation in
            for _ in 0..<128 { continuation.yield(piece) }
            continuation.finish()
        } })
        let streamed = try await manager().stream(for: post(try FaultServer.url("/duplex/0")), body: body)
        var received = 0
        var matches = true
        for try await chunk in streamed.body {
            for (offset, byte) in chunk.enumerated() where byte != piece[(received + offset) % piece.count] { matches = false }
            received += chunk.count
        }
        XCTAssertEqual(received, 128 * 65_536)
        XCTAssertTrue(matches, "the echo differs from what was sent")
    }
}
