@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// Where a retry continues a cut body, without a server.
final class RangeContinuationTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1/file")!

    private func response(_ status: Int, _ headers: [String: String]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    func testA200WithAStrongETagContinuesAfterTheDeliveredBytes() throws {
        let range = try XCTUnwrap(RangeContinuation(response: response(200, ["ETag": "\"v1\""]), delivered: 40_000))
        XCTAssertEqual(range.offset, 40_000)
        let request = range.request(URLRequest(url: url))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Range"), "bytes=40000-")
        XCTAssertEqual(request.value(forHTTPHeaderField: "If-Range"), "\"v1\"")
    }

    func testA206ContinuesFromItsOwnStart() throws {
        let range = try XCTUnwrap(RangeContinuation(
            response: response(206, ["Content-Range": "bytes 40000-99999/100000", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]),
            delivered: 10_000))
        XCTAssertEqual(range.offset, 50_000)
        XCTAssertEqual(range.validator, "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    func testNoContinuationWithoutAValidatorBytesOrWithAContentCoding() {
        XCTAssertNil(RangeContinuation(response: response(200, [:]), delivered: 10))
        XCTAssertNil(RangeContinuation(response: response(200, ["ETag": "W/\"weak\""]), delivered: 10))
        XCTAssertNil(RangeContinuation(response: response(200, ["ETag": "\"v1\""]), delivered: 0))
        XCTAssertNil(RangeContinuation(response: response(200, ["ETag": "\"v1\"", "Content-Encoding": "gzip"]), delivered: 10))
        XCTAssertNil(RangeContinuation(response: response(203, ["ETag": "\"v1\""]), delivered: 10))
        XCTAssertNil(RangeContinuation(response: response(206, ["ETag": "\"v1\""]), delivered: 10))
    }

    func testOnlyA206StartingAtTheOffsetContinues() throws {
        let range = try XCTUnwrap(RangeContinuation(response: response(200, ["ETag": "\"v1\""]), delivered: 400))
        XCTAssertTrue(range.isContinued(by: response(206, ["Content-Range": "bytes 400-999/1000"])))
        XCTAssertFalse(range.isContinued(by: response(206, ["Content-Range": "bytes 0-999/1000"])))
        XCTAssertFalse(range.isContinued(by: response(200, [:])))
    }

    func testARangeStartNearInt64MaxHasNoContinuationInsteadOfTrapping() {
        let start = Int64.max - 10
        let cut = response(206, ["Content-Range": "bytes \(start)-\(Int64.max - 1)/\(Int64.max)", "ETag": "\"v1\""])
        XCTAssertNil(RangeContinuation(response: cut, delivered: 40_000))
    }

    func testASignedOrOverflowingRangeStartIsNoStart() {
        for range in ["bytes -5-10/100", "bytes +5-10/100", "bytes 99999999999999999999-1/2", "bytes 0x10-20/30", "bytes -"] {
            XCTAssertNil(ContentRange.start(of: response(206, ["Content-Range": range])), range)
        }
        XCTAssertEqual(ContentRange.start(of: response(206, ["Content-Range": "bytes 5-10/100"])), 5)
    }

    /// `W/` followed by U+0301 (one `Character` with the `/`) still marks a weak tag, which
    /// cannot validate a range.
    func testAWeakETagWhoseSlashIsFollowedByACombiningMarkIsNoValidator() {
        let weak = response(200, ["ETag": "W/\u{301}\"v1\""])
        XCTAssertNil(ContentRange.strongEntityTag(of: weak))
        XCTAssertNil(RangeContinuation(response: weak, delivered: 10))
    }
}
