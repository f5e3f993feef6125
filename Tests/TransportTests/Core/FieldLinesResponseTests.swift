@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The libcurl transport's response keeps each header field as it came beside the joined
/// fields `HTTPURLResponse` reports.
final class FieldLinesResponseTests: XCTestCase {
    private let lines = [
        "HTTP/1.1 200 OK", "Set-Cookie: a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "set-cookie: b=2",
        "X-Custom: one", "X-Custom:two ", "X-Folded: start", " continued", "no colon here", "Content-Length: 0",
    ]

    func testEachFieldIsListedAsItCameAndTheJoinedFieldsAreURLSessions() throws {
        let head = try XCTUnwrap(ResponseHead.parse(lines))
        let response = try XCTUnwrap(head.response(for: URL(string: "https://api.example.com/a")!) as? FieldLinesResponse)
        XCTAssertEqual(response.fieldList.map { "\($0.name): \($0.value)" }, [
            "Set-Cookie: a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "set-cookie: b=2", "X-Custom: one", "X-Custom: two",
            "X-Folded: start continued", "Content-Length: 0",
        ])
        XCTAssertEqual(response.value(forHTTPHeaderField: "X-Custom"), "one, two")
        XCTAssertEqual(response.statusCode, 200)
    }
}
