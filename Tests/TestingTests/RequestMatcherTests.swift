@testable import AFNetworkingTesting
import Foundation
import XCTest

/// Which recorded requests a stub route's matcher takes, without a manager.
final class RequestMatcherTests: XCTestCase {
    private func request(
        _ method: String = "POST", _ url: String = "https://api.example.com/v1/items?page=2&sort=name",
        fields: [String: String] = [:], body: String = ""
    ) -> RecordedRequest {
        let url = URL(string: url)!
        let target = url.path + (url.query.map { "?" + $0 } ?? "")
        return RecordedRequest(method: method, target: target, fields: fields.map { .init(name: $0.key, value: $0.value) },
                               body: Data(body.utf8), connection: 0, url: url)
    }

    func testMethodsCompareInAnyCaseAndPathsExactly() {
        XCTAssertTrue(RequestMatcher(method: "post", path: "/v1/items").matches(request()))
        XCTAssertFalse(RequestMatcher(method: "GET", path: "/v1/items").matches(request()))
        XCTAssertFalse(RequestMatcher(path: "/v1/item").matches(request()))
    }

    func testAnAbsoluteURLMatchesItsHostAndPathWhateverTheQuery() {
        XCTAssertTrue(RequestMatcher(path: "https://api.example.com/v1/items").matches(request()))
        XCTAssertFalse(RequestMatcher(path: "https://other.example.com/v1/items").matches(request()))
    }

    func testAStarSegmentMatchesAnyOneSegment() {
        XCTAssertTrue(RequestMatcher(path: "/v1/*").matches(request()))
        XCTAssertTrue(RequestMatcher(path: "/*/items").matches(request()))
        XCTAssertTrue(RequestMatcher(path: "https://api.example.com/v1/*").matches(request()))
        XCTAssertFalse(RequestMatcher(path: "/*").matches(request()), "one segment, not two")
        XCTAssertFalse(RequestMatcher(path: "/v1/items/*").matches(request()), "not an empty one")
        XCTAssertFalse(RequestMatcher(path: "https://*.example.com/v1/items").matches(request()), "a host is not a segment pattern")
    }

    func testQueryItemsAndHeadersMustBePresentWithTheirValues() {
        XCTAssertTrue(RequestMatcher(query: ["page": "2"]).matches(request()))
        XCTAssertFalse(RequestMatcher(query: ["page": "3"]).matches(request()))
        XCTAssertTrue(RequestMatcher(headers: ["x-trace": "t"]).matches(request(fields: ["X-Trace": "t"])))
        XCTAssertFalse(RequestMatcher(headers: ["X-Trace": "t"]).matches(request()))
    }

    func testBodiesMatchAsBytesJSONAndFormFields() throws {
        XCTAssertTrue(RequestMatcher(body: .bytes(Data("a=1".utf8))).matches(request(body: "a=1")))
        XCTAssertTrue(RequestMatcher(body: try .json(["b": 2, "a": 1])).matches(request(body: #"{"a":1,"b":2}"#)))
        XCTAssertFalse(RequestMatcher(body: try .json(["a": 1])).matches(request(body: #"{"a":2}"#)))
        XCTAssertTrue(RequestMatcher(body: .form(["name": "Ada Lovelace"])).matches(request(body: "name=Ada+Lovelace&x=1")))
        XCTAssertFalse(RequestMatcher(body: .form(["name": "Ada"])).matches(request(body: "name=Grace")))
    }

    func testTheNearestRoutesAreTheOnesMissingFewestCriteria() {
        let recorded = request()
        XCTAssertEqual(RequestMatcher(method: "POST", path: "/v1/items").unmet(by: recorded), 0)
        XCTAssertEqual(RequestMatcher(method: "GET", path: "/v1/items").unmet(by: recorded), 1)
        XCTAssertEqual(RequestMatcher(method: "GET", path: "/v2", query: ["page": "9"]).unmet(by: recorded), 3)
    }

    /// A decoded path may hold a `/` followed by U+0301, one `Character` with it: the `/`
    /// still ends a segment.
    func testAStarSegmentEndsAtASlashFollowedByACombiningMark() {
        XCTAssertTrue(RequestMatcher(path: "/v1/*").matches(request("GET", "https://api.example.com/v1/%CC%81x")))
    }
}
