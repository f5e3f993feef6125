@testable import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The connect, idle and total timeouts of a libcurl transfer, without a server.
final class TransferTimeoutsTests: XCTestCase {
    func testAHopGetsTheConnectTimeoutAndWhatIsLeftOfTheTotalInMilliseconds() throws {
        let timeouts = TransferTimeouts(connect: 0.3, idle: 0.5, total: 1.5)
        let first = try XCTUnwrap(timeouts.hopMilliseconds(elapsed: 0))
        XCTAssertEqual(first.connect, 300)
        XCTAssertEqual(first.total, 1500)
        let later = try XCTUnwrap(timeouts.hopMilliseconds(elapsed: 1.25))
        XCTAssertEqual(later.connect, 250, "never more than the total left")
        XCTAssertEqual(later.total, 250)
    }

    func testNoTotalMeansNoLibcurlTotal() throws {
        let hop = try XCTUnwrap(TransferTimeouts(connect: 0.0125, idle: 1, total: nil).hopMilliseconds(elapsed: 100))
        XCTAssertEqual(hop.connect, 13, "fractions round up to the millisecond")
        XCTAssertEqual(hop.total, 0)
    }

    func testAHopAfterTheTotalRanOutGetsNothing() {
        XCTAssertNil(TransferTimeouts(connect: 1, idle: 1, total: 1).hopMilliseconds(elapsed: 1))
    }

    func testALibcurlTimeoutAtTheTotalBudgetIsTheTotalOtherwiseTheConnect() {
        XCTAssertEqual(TransferTimeouts.kindOfLibcurlTimeout(hopElapsed: 1.5, hopTotalMilliseconds: 1500), .total)
        XCTAssertEqual(TransferTimeouts.kindOfLibcurlTimeout(hopElapsed: 1.49, hopTotalMilliseconds: 1500), .total, "timers may fire a little early")
        XCTAssertEqual(TransferTimeouts.kindOfLibcurlTimeout(hopElapsed: 0.3, hopTotalMilliseconds: 1500), .connect)
        XCTAssertEqual(TransferTimeouts.kindOfLibcurlTimeout(hopElapsed: 9, hopTotalMilliseconds: 0), .connect)
    }

    func testTheErrorNamesTheKindAndTheValue() {
        let error = TransferTimeouts(connect: 0.3, idle: 0.5, total: 1.5).error(.idle, url: URL(string: "http://h/x"))
        XCTAssertEqual(error.code, .timedOut)
        XCTAssertEqual(error.userInfo[TimeoutKind.errorUserInfoKey] as? String, "idle")
        XCTAssertEqual(error.userInfo[NSLocalizedDescriptionKey] as? String, "The request timed out: no data for 0.500 s (idle timeout).")
        XCTAssertEqual(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL, URL(string: "http://h/x"))
    }

    func testInfinityAndValuesTooLargeForLibcurlMeanNoLimit() throws {
        for seconds in [TimeInterval.infinity, .greatestFiniteMagnitude, 9.3e15, 1e300] {
            let timeouts = TransferTimeouts(connect: seconds, idle: seconds, total: seconds)
            XCTAssertNil(timeouts.connect)
            XCTAssertNil(timeouts.idle)
            XCTAssertNil(timeouts.total)
            let hop = try XCTUnwrap(timeouts.hopMilliseconds(elapsed: 5))
            XCTAssertEqual(hop.connect, TransferTimeouts.unlimitedMilliseconds)
            XCTAssertEqual(hop.total, 0)
        }
    }

    func testTheLongestLimitIsKept() throws {
        let hop = try XCTUnwrap(TransferTimeouts(connect: TransferTimeouts.longest, idle: 1, total: TransferTimeouts.longest).hopMilliseconds(elapsed: 0))
        XCTAssertEqual(hop.total, Int(TransferTimeouts.longest * 1000))
    }
}
