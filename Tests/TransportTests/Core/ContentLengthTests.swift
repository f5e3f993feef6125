@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The one rule for a response's `Content-Length` (RFC 9110 section 8.6), as a table, and both
/// of its readers following it: `ResponseFraming`, which refuses a head, and `ResponseEnd`,
/// which follows an early response's body to its end.
final class ContentLengthTests: XCTestCase {
    /// Field values and what the rule reads in them.
    private let table: [(value: String, expected: Result<Int64, ResponseFramingError>)] = [
        ("5", .success(5)),
        (" 5\t", .success(5)),
        ("0", .success(0)),
        ("007", .success(7)),
        ("9223372036854775807", .success(Int64.max)),
        ("5, 5", .success(5)),
        ("5,5", .success(5)),
        ("5 ,\t5, 5", .success(5)),
        ("5, 6", .failure(.conflictingContentLengths("5, 6"))),
        ("5, 5, 6", .failure(.conflictingContentLengths("5, 6"))),
        ("", .failure(.invalidContentLength(""))),
        ("5,", .failure(.invalidContentLength(""))),
        (", 5", .failure(.invalidContentLength(""))),
        ("5, x", .failure(.invalidContentLength("x"))),
        ("5 6", .failure(.invalidContentLength("5 6"))),
        ("-1", .failure(.invalidContentLength("-1"))),
        ("+5", .failure(.invalidContentLength("+5"))),
        ("0x10", .failure(.invalidContentLength("0x10"))),
        ("\u{FF15}", .failure(.invalidContentLength("\u{FF15}"))),
        ("9223372036854775808", .failure(.invalidContentLength("9223372036854775808"))),
        ("99999999999999999999", .failure(.invalidContentLength("99999999999999999999"))),
    ]

    func testIdenticalValuesAreOneLengthAndAnyOtherListIsAFault() {
        for (value, expected) in table {
            XCTAssertEqual(ContentLength.length(of: value), expected, "Content-Length: \(value)")
        }
    }

    func testTheHeadCheckRefusesExactlyTheValuesTheRuleRefuses() {
        for (value, expected) in table {
            let lines = ["HTTP/1.1 413 Content Too Large", "Content-Length: \(value)"]
            XCTAssertEqual(ResponseFraming.fault(in: lines), Self.fault(of: expected), "Content-Length: \(value)")
        }
    }

    func testAnEarlyResponseIsFollowedToTheLengthTheRuleReadsOrFailsWithItsFault() {
        for (value, expected) in table {
            let framing = Result { () throws(ResponseFramingError) in
                try ResponseEnd.framing(status: 413, isHead: false, transferEncoding: nil, contentLength: value)
            }
            XCTAssertEqual(framing, expected.map(ResponseEnd.Framing.length), "Content-Length: \(value)")
        }
    }

    func testALengthSentOnTwoLinesIsReadAsTheListOfBoth() throws {
        let cases: [(second: String, expected: Result<Int64, ResponseFramingError>)] = [
            ("5", .success(5)), ("6", .failure(.conflictingContentLengths("5, 6"))),
        ]
        for (second, expected) in cases {
            let lines = ["HTTP/1.1 413 Content Too Large", "Content-Length: 5", "Content-Length: \(second)"]
            let response = try XCTUnwrap(ResponseHead.parse(lines)?.response(for: URL(string: "http://127.0.0.1/")!))
            let joined = try XCTUnwrap(response.value(forHTTPHeaderField: "Content-Length"))
            XCTAssertEqual(ContentLength.length(of: joined), expected, joined)
            XCTAssertEqual(ResponseFraming.fault(in: lines), Self.fault(of: expected), joined)
        }
    }

    /// The fault of `reading`, `nil` for a length.
    private static func fault(of reading: Result<Int64, ResponseFramingError>) -> ResponseFramingError? {
        if case .failure(let fault) = reading { fault } else { nil }
    }
}
