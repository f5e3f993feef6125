import AFNetworkingTesting
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A streamed response's trailer fields on the libcurl transfer answered by a stub (no socket):
/// which hop's trailers reach the body, with a held response, a retry, a redirect. The server
/// tests are `ResponseTrailersTests` (TransportTests); the stub's own are in `StubTransportTests`.
final class ResponseTrailersStubTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/v1/export")!

    /// The trailers after the body of a streamed GET of `url` answered by `stubs`, and the body.
    private func trailers(_ stubs: StubTransport, interceptor: (any RequestInterceptor)? = nil) async throws
        -> (trailers: [String: String]?, body: String, response: HTTPURLResponse) {
        let manager = makeManager(stubs: stubs, interceptor: interceptor)
        let streamed = try await manager.stream(for: URLRequest(url: url), validation: HTTPResponseSerializer(acceptableStatusCodes: nil))
        let body = try await streamed.body.collect(upTo: 10_000)
        return (streamed.body.trailers, String(decoding: body, as: UTF8.self), streamed.response)
    }

    func testABodyWithoutTrailersEndsWithNone() async throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(.text("rows"))
        let outcome = try await trailers(stubs)
        XCTAssertEqual(outcome.body, "rows")
        XCTAssertEqual(outcome.trailers, [:])
    }

    func testRepeatedTrailerFieldsAreJoined() async throws {
        var reply = StubReply.text("rows")
        reply.trailers = [.init(name: "X-Step", value: "one"), .init(name: "X-Step", value: "two")]
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(reply)
        let outcome = try await trailers(stubs)
        XCTAssertEqual(outcome.trailers, ["X-Step": "one, two"])
    }

    func testTrailersNeverChangeTheHead() async throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("rows").withTrailers(["X-Checksum": "c-1"]))
        let outcome = try await trailers(stubs)
        XCTAssertEqual(outcome.trailers, ["X-Checksum": "c-1"])
        XCTAssertNil(outcome.response.value(forHTTPHeaderField: "X-Checksum"))
    }

    func testTrailersOfAResponseHeldForAnInterceptorArriveWithIt() async throws {
        // A 404 is held until the policy declines to retry it; its trailers go with it.
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.text("gone", status: 404).withTrailers(["X-Reason": "gone"]))
        let outcome = try await trailers(stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        XCTAssertEqual(outcome.response.statusCode, 404)
        XCTAssertEqual(outcome.body, "gone")
        XCTAssertEqual(outcome.trailers, ["X-Reason": "gone"])
    }

    func testTrailersOfAnAttemptRetriedAwayDoNotReachTheNextOnesBody() async throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).replies([StubReply.text("busy", status: 503).withTrailers(["X-Reason": "busy"]), .text("rows")])
        let outcome = try await trailers(stubs, interceptor: RetryPolicy(budget: nil, jitter: { _ in 0 }))
        XCTAssertEqual(outcome.response.statusCode, 200)
        XCTAssertEqual(outcome.body, "rows")
        XCTAssertEqual(outcome.trailers, [:])
    }

    func testTrailersOfARedirectAreNotHandedOn() async throws {
        let stubs = StubTransport()
        stubs.on("GET", url.absoluteString).reply(StubReply.status(302, fields: ["Location": "/v1/moved"], body: Data("see".utf8))
            .withTrailers(["X-Hop": "redirect"]))
        stubs.on("GET", "https://api.example.com/v1/moved").reply(StubReply.text("rows").withTrailers(["X-Hop": "final"]))
        let outcome = try await trailers(stubs)
        XCTAssertEqual(outcome.body, "rows")
        XCTAssertEqual(outcome.trailers, ["X-Hop": "final"])
    }
}
