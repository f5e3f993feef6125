@testable import AFNetworkingTesting
import Foundation
import XCTest

/// What a recorded request says of its target and its form body, without a server.
final class RecordedRequestTests: XCTestCase {
    /// `?` followed by U+0301 is one `Character` with it: the `?` still ends the path.
    func testThePathEndsAtAQuestionMarkFollowedByACombiningMark() {
        XCTAssertEqual(RecordedRequest(method: "GET", target: "/a?\u{301}b=1", fields: [], body: Data(), connection: 0).path, "/a")
    }

    /// A form body is read as bytes: a `+` followed by U+0301 is still a space, and escapes
    /// are decoded even when the body holds bytes outside ASCII.
    func testAFormBodyIsDecodedByteByByte() {
        XCTAssertEqual(RecordedRequest.formFields(of: Data("a=x+\u{301}y%21&b&c=%zz".utf8)),
                       [URLQueryItem(name: "a", value: "x \u{301}y!"), URLQueryItem(name: "b", value: nil), URLQueryItem(name: "c", value: "%zz")])
    }
}
