import AFNetworkingTesting
import Foundation
import XCTest

/// The parts of multipart bodies, without a server.
final class MultipartPartsTests: XCTestCase {
    /// A part's name and filename end at their closing `"`, also one followed by U+0301 (one
    /// `Character` with it), and the boundary at its `;`: as Werkzeug reads them.
    func testParametersEndAtAQuoteFollowedByACombiningMark() {
        let body = Data("--B\r\nContent-Disposition: form-data; name=\"n\"\u{301}; filename=\"f\"\u{301}.png\"\r\n\r\nv\r\n--B--\r\n".utf8)
        let parts = MultipartParts.parse(body, contentType: "multipart/form-data; boundary=B;\u{301} x=y")
        XCTAssertEqual(parts.map(\.name), ["n"])
        XCTAssertEqual(parts.map(\.filename), ["f"])
        XCTAssertEqual(parts.map(\.content), [Data("v".utf8)])
    }
}
