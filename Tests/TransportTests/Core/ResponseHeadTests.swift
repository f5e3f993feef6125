@testable import AFSession
@testable import AFTransport
import Foundation
import XCTest

/// The response-header parser, from header lines as libcurl hands them over.
final class ResponseHeadTests: XCTestCase {
    func testStatusLineAndFieldsBecomeTheHead() throws {
        let head = try XCTUnwrap(ResponseHead.parse(["HTTP/1.1 201 Created", "Content-Type: application/json", "Content-Length:  12 "]))
        XCTAssertEqual(head.statusCode, 201)
        XCTAssertEqual(head.httpVersion, "HTTP/1.1")
        XCTAssertEqual(head.fields, ["Content-Type": "application/json", "Content-Length": "12"])
        XCTAssertEqual(head.setCookies, [])
    }

    func testRepeatedFieldsAreJoinedUnderTheFirstSpellingInAnyCase() throws {
        let head = try XCTUnwrap(ResponseHead.parse(["HTTP/1.1 200 OK", "Vary: Accept", "vary: Origin", "VARY: Cookie"]))
        XCTAssertEqual(head.fields, ["Vary": "Accept, Origin, Cookie"])
    }

    func testEachSetCookieLineIsKeptWhole() throws {
        let head = try XCTUnwrap(ResponseHead.parse([
            "HTTP/1.1 200 OK",
            "Set-Cookie: a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
            "set-cookie: b=2; Path=/",
        ]))
        XCTAssertEqual(head.setCookies, ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2; Path=/"])
        XCTAssertEqual(head.fields["Set-Cookie"], "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT, b=2; Path=/")
    }

    func testHTTP2StatusLineWithoutAReasonIsParsed() throws {
        let head = try XCTUnwrap(ResponseHead.parse(["HTTP/2 204", "server: nginx"]))
        XCTAssertEqual(head.statusCode, 204)
        XCTAssertEqual(head.httpVersion, "HTTP/2")
        XCTAssertEqual(head.fields, ["server": "nginx"])
    }

    func testAContinueBlockIsInterimAndGivesNoHead() {
        XCTAssertNil(ResponseHead.parse(["HTTP/1.1 100 Continue"]))
        XCTAssertNil(ResponseHead.parse(["HTTP/1.1 103 Early Hints", "Link: </a.css>; rel=preload"]))
    }

    func testALineWithoutAColonIsIgnored() throws {
        let head = try XCTUnwrap(ResponseHead.parse(["HTTP/1.1 200 OK", "garbage line", "X-A: 1"]))
        XCTAssertEqual(head.fields, ["X-A": "1"])
    }

    /// A name outside RFC 9110's token characters is ignored with its value: `HTTPURLResponse`
    /// folds names by Unicode case, so a Kelvin sign in `Set-Coo\u{212A}ie` or a long s in
    /// `\u{17F}et-Cookie` would make it a `Set-Cookie`; a colon followed by U+0301 ends the name.
    func testAFieldWhoseNameIsNotATokenIsIgnored() throws {
        let head = try XCTUnwrap(ResponseHead.parse(
            ["HTTP/1.1 200 OK", "Set-Coo\u{212A}ie: a=b", "\u{17F}et-Cookie: c=d", "X-A : 1", "\tfolded", "X-B:\u{301}: 2", "X-C: 3"]))
        XCTAssertEqual(head.fields, ["X-B": "\u{301}: 2", "X-C": "3"])
        XCTAssertEqual(head.setCookies, [])
        XCTAssertNil(head.response(for: URL(string: "http://127.0.0.1/")!)?.value(forHTTPHeaderField: "Set-Cookie"))
    }

    func testAFoldedLineContinuesThePreviousField() throws {
        let head = try XCTUnwrap(ResponseHead.parse(["HTTP/1.1 200 OK", "X-Long: first", "\tsecond", " third"]))
        XCTAssertEqual(head.fields, ["X-Long": "first second third"])
    }

    func testAnEmptyValueIsKept() throws {
        let head = try XCTUnwrap(ResponseHead.parse(["HTTP/1.0 200 OK", "X-Empty:"]))
        XCTAssertEqual(head.fields, ["X-Empty": ""])
        XCTAssertEqual(head.httpVersion, "HTTP/1.0")
    }

    func testSpacesAndTabsAroundAValueAreTrimmedAndThoseInsideKept() throws {
        let head = try XCTUnwrap(ResponseHead.parse(["HTTP/1.1 200 OK", "X-Note: \t a  b \t", "X-Blank: \t ", "X-U: café"]))
        XCTAssertEqual(head.fields, ["X-Note": "a  b", "X-Blank": "", "X-U": "café"])
    }

    func testStatusLinesThatAreNotHTTPGiveNoHead() {
        for line in ["", "HTTP/1.1", "HTTP/1.1 abc OK", "HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "ICY 200 OK"] {
            XCTAssertNil(ResponseHead.parse([line]), line)
        }
        XCTAssertNil(ResponseHead.parse([]))
    }

    func testAnyThreeDigitCodeFrom200IsAFinalResponse() {
        XCTAssertEqual(ResponseHead.parse(["HTTP/1.1 700 Odd"])?.statusCode, 700)
        XCTAssertEqual(ResponseHead.parse(["HTTP/1.1 999"])?.statusCode, 999)
        XCTAssertNil(ResponseHead.parse(["HTTP/1.1 103 Early Hints"]), "an interim response")
    }
    func testRepeatedFieldsAreJoinedAlsoAmongManyFields() throws {
        let lines = ["HTTP/1.1 200 OK"] + (0..<40).map { "X-Field-\($0): \($0)" } + ["x-field-3: again", "SET-COOKIE: a=1", "set-cookie: b=2"]
        let head = try XCTUnwrap(ResponseHead.parse(lines))
        XCTAssertEqual(head.fields.count, 41)
        XCTAssertEqual(head.fields["X-Field-3"], "3, again")
        XCTAssertEqual(head.setCookies, ["a=1", "b=2"])
    }
}
