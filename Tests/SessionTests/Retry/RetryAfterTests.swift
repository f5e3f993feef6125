@testable import AFSession
import Foundation
import XCTest

/// `Retry-After` in its three forms, without a server.
final class RetryAfterTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT

    func testSeconds() {
        XCTAssertEqual(RetryAfter.delay(from: "120", now: now), 120)
        XCTAssertEqual(RetryAfter.delay(from: " 0 ", now: now), 0)
    }

    func testIMFFixdate() {
        XCTAssertEqual(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:50:07 GMT", now: now), 30)
    }

    func testRFC850Date() {
        XCTAssertEqual(RetryAfter.delay(from: "Sunday, 06-Nov-94 08:50:37 GMT", now: now), 60)
    }

    func testAsctimeDate() {
        XCTAssertEqual(RetryAfter.delay(from: "Sun Nov  6 08:49:47 1994", now: now), 10)
    }

    func testADateInThePastAsksForNoWait() {
        XCTAssertEqual(RetryAfter.delay(from: "Sun, 06 Nov 1994 08:00:00 GMT", now: now), 0)
    }

    func testOtherValuesAreNotRetryAfter() {
        for value in ["", "-5", "1.5", "soon", "0x10", "Sun, 06 Nov 1994"] {
            XCTAssertNil(RetryAfter.delay(from: value, now: now), value)
        }
    }
}
