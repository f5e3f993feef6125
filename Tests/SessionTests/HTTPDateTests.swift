@testable import AFSession
import Foundation
import XCTest

/// HTTP's three date forms read as bytes (RFC 9110, 5.6.7), without a server.
final class HTTPDateTests: XCTestCase {
    private let moment = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT

    func testAnIMFFixdateNamesItsMoment() {
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), moment)
    }

    func testAnRFC850DateNamesItsMoment() {
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: moment), moment)
    }

    func testAnAsctimeDateNamesItsMoment() {
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), moment)
        XCTAssertEqual(HTTPDate.parse("Sun Nov 16 08:49:37 1994"), moment.addingTimeInterval(10 * 86_400))
    }

    func testAnRFC850YearMoreThanFiftyYearsAheadIsInThePastCentury() {
        let now = Date(timeIntervalSince1970: 1_795_000_000) // 2026
        XCTAssertEqual(HTTPDate.parse("Monday, 01-Jan-76 00:00:00 GMT", now: now), Date(timeIntervalSince1970: 3_345_062_400))
        XCTAssertEqual(HTTPDate.parse("Thursday, 01-Jan-77 00:00:00 GMT", now: now), Date(timeIntervalSince1970: 220_924_800))
    }

    func testTheEpochAndALeapDayAreRead() {
        XCTAssertEqual(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT"), Date(timeIntervalSince1970: 0))
        XCTAssertEqual(HTTPDate.parse("Thu, 29 Feb 2024 12:00:00 GMT"), Date(timeIntervalSince1970: 1_709_208_000))
    }

    func testSpacesAroundTheValueAreIgnored() {
        XCTAssertEqual(HTTPDate.parse("  Sun, 06 Nov 1994 08:49:37 GMT\t"), moment)
    }

    func testDatesThatDoNotExistAreNotRead() {
        for value in ["Wed, 29 Feb 2023 00:00:00 GMT", "Sun, 31 Apr 1994 00:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
                      "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 00 Nov 1994 08:49:37 GMT"] {
            XCTAssertNil(HTTPDate.parse(value), value)
        }
    }

    func testOtherFormsAndZonesAreNotRead() {
        for value in ["", "0", "tomorrow", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 +0000", "Sun, 6 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT trailing", "06 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06-Nov-1994 08:49:37 GMT"] {
            XCTAssertNil(HTTPDate.parse(value), value)
        }
    }

    func testAMonthFollowedByACombiningMarkIsNotAMonth() {
        XCTAssertNil(HTTPDate.parse("Sun, 06 Nov\u{301} 1994 08:49:37 GMT"))
    }
}
