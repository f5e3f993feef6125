@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// A cut body continued across attempts, without a server: what the next attempt asks for,
/// which answer continues it, and what is left of a size limit.
final class BodyContinuationTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1/file")!
    private let cut = URLError(.networkConnectionLost)

    private func response(_ status: Int, _ headers: [String: String]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    /// The continuation of a 200 with a strong ETag of which `delivered` bytes arrived.
    private func range(after delivered: Int64) -> RangeContinuation? {
        RangeContinuation(response: response(200, ["ETag": "\"v1\""]), delivered: delivered)
    }

    func testAFailedAttemptWithARangeIsContinuedByTheNextFromTheBytesDelivered() {
        var continuation = BodyContinuation()
        continuation.attemptEnded(range: range(after: 40), failure: cut, delivered: 40)
        XCTAssertTrue(continuation.isPending)
        let request = continuation.request(URLRequest(url: url))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Range"), "bytes=40-")
        XCTAssertEqual(request.value(forHTTPHeaderField: "If-Range"), "\"v1\"")
        XCTAssertEqual(continuation.bytesLeft(of: 100), 60)
    }

    func testAnAttemptWithoutARangeOrAFailureStartsTheNextOver() {
        var continuation = BodyContinuation()
        continuation.attemptEnded(range: range(after: 40), failure: cut, delivered: 40)
        continuation.attemptEnded(range: nil, failure: cut, delivered: 10)
        XCTAssertFalse(continuation.isPending)
        XCTAssertNil(continuation.request(URLRequest(url: url)).value(forHTTPHeaderField: "Range"))
        XCTAssertEqual(continuation.bytesLeft(of: 100), 100)
        continuation.attemptEnded(range: range(after: 40), failure: nil, delivered: 40)
        XCTAssertFalse(continuation.isPending, "an attempt that did not fail is not continued")
    }

    func testTheRestContinuesTheBody() {
        var continuation = BodyContinuation()
        continuation.attemptEnded(range: range(after: 40), failure: cut, delivered: 40)
        XCTAssertEqual(continuation.headArrived(response(206, ["Content-Range": "bytes 40-99/100"])), true)
        XCTAssertFalse(continuation.isPending)
        XCTAssertNil(continuation.takeRefusal())
    }

    func testAnAnswerThatIsNotTheRestIsRefusedWithTheCutOnce() {
        var continuation = BodyContinuation()
        continuation.attemptEnded(range: range(after: 40), failure: cut, delivered: 40)
        XCTAssertEqual(continuation.headArrived(response(200, ["ETag": "\"v2\""])), false)
        XCTAssertEqual(continuation.takeRefusal(), cut)
        XCTAssertNil(continuation.takeRefusal())
    }

    func testAHeadWithNoContinuationAskedForIsNotOne() {
        var continuation = BodyContinuation()
        XCTAssertNil(continuation.headArrived(response(206, ["Content-Range": "bytes 40-99/100"])))
    }

    func testEachContinuationCountsTheBytesOfThoseBeforeIt() {
        var continuation = BodyContinuation()
        continuation.attemptEnded(range: range(after: 40), failure: cut, delivered: 40)
        XCTAssertEqual(continuation.headArrived(response(206, ["Content-Range": "bytes 40-99/100", "ETag": "\"v1\""])), true)
        let second = RangeContinuation(response: response(206, ["Content-Range": "bytes 40-99/100", "ETag": "\"v1\""]), delivered: 25)
        continuation.attemptEnded(range: second, failure: cut, delivered: 25)
        XCTAssertEqual(continuation.request(URLRequest(url: url)).value(forHTTPHeaderField: "Range"), "bytes=65-")
        XCTAssertEqual(continuation.bytesLeft(of: 100), 35)
    }
}
