import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class JSONResponseSerializerTests: XCTestCase {
    let serializer = JSONResponseSerializer()

    func testValidJSONDictionaryIsParsed() throws {
        let object = try serializer.responseObject(for: httpResponse(), data: Data(#"{"key":"value","n":2,"list":[1,"a"]}"#.utf8))
        let dictionary = try XCTUnwrap(object as? [String: Any])
        XCTAssertEqual(dictionary["key"] as? String, "value")
        XCTAssertEqual(dictionary["n"] as? Int, 2)
        XCTAssertEqual((dictionary["list"] as? [Any])?.count, 2)
    }

    func testValidJSONArrayIsParsed() throws {
        let object = try serializer.responseObject(for: httpResponse(), data: Data("[1,2,3]".utf8))
        XCTAssertEqual(object as? [Int], [1, 2, 3])
    }

    func testDefaultAcceptableContentTypes() {
        XCTAssertEqual(serializer.acceptableContentTypes, ["application/json", "text/json", "text/javascript"])
        for type in ["application/json", "text/json", "text/javascript"] {
            XCTAssertNoThrow(try serializer.responseObject(for: httpResponse(contentType: type), data: Data("{}".utf8)), type)
        }
    }

    func testContentTypeParametersAreIgnored() {
        XCTAssertNoThrow(try serializer.responseObject(for: httpResponse(contentType: "application/json; charset=utf-8"), data: Data("{}".utf8)))
    }

    func testTextHTMLIsRejected() {
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(contentType: "text/html"), data: Data("<p>".utf8))) {
            XCTAssertEqual(($0 as? ResponseSerializationError)?.reason, .unacceptableContentType("text/html"))
        }
    }

    func testEmptyBodyGivesNilAndNoError() throws {
        XCTAssertNil(try serializer.responseObject(for: httpResponse(), data: Data()))
        XCTAssertNil(try serializer.responseObject(for: httpResponse(), data: nil))
    }

    func testSingleSpaceBodyGivesNilAndNoError() throws {
        XCTAssertNil(try serializer.responseObject(for: httpResponse(), data: Data(" ".utf8)))
    }

    func test204WithoutContentTypeGivesNil() throws {
        XCTAssertNil(try serializer.responseObject(for: httpResponse(status: 204, contentType: nil), data: Data()))
    }

    func testInvalidJSONIsAnUndecodableBodyErrorWithTheParserErrorUnderneath() {
        let body = Data("{not json".utf8)
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(), data: body)) { error in
            let typed = error as? ResponseSerializationError
            XCTAssertEqual(typed?.reason, .undecodableBody("invalid JSON"))
            XCTAssertNotNil(typed?.underlyingError)
            XCTAssertEqual(typed?.data, body)
            XCTAssertEqual((error as NSError).code, -1016)
        }
    }

    func testNon2xxJSONReplyThrowsWithTheBodyExposed() {
        let body = Data(#"{"error":"bad token"}"#.utf8)
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(status: 401), data: body)) { error in
            let typed = error as? ResponseSerializationError
            XCTAssertEqual(typed?.reason, .unacceptableStatusCode(401))
            XCTAssertEqual(typed?.data, body)
            XCTAssertEqual(typed?.response?.statusCode, 401)
        }
    }

    func testNullsAreKeptByDefault() throws {
        let object = try serializer.responseObject(for: httpResponse(), data: Data(#"{"a":null}"#.utf8))
        XCTAssertTrue((object as? [String: Any])?["a"] is NSNull)
    }

    func testRemovesKeysWithNullValuesAtEveryDepth() throws {
        var serializer = self.serializer
        serializer.removesKeysWithNullValues = true
        let body = Data(#"{"a":null,"b":{"c":null,"d":1},"e":[null,{"f":null,"g":2}],"h":[null]}"#.utf8)
        let object = try XCTUnwrap(try serializer.responseObject(for: httpResponse(), data: body) as? [String: Any])
        XCTAssertNil(object["a"])
        XCTAssertEqual((object["b"] as? [String: Any])?.keys.sorted(), ["d"])
        let e = try XCTUnwrap(object["e"] as? [Any])
        XCTAssertEqual(e.count, 1)
        XCTAssertEqual((e[0] as? [String: Any])?.keys.sorted(), ["g"])
        XCTAssertEqual((object["h"] as? [Any])?.count, 0)
    }

    func testFragmentsNeedTheReadingOption() throws {
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(), data: Data("42".utf8)))
        var serializer = self.serializer
        serializer.readingOptions = [.fragmentsAllowed]
        XCTAssertEqual(try serializer.responseObject(for: httpResponse(), data: Data("42".utf8)) as? Int, 42)
    }

    func testResultIsSendableAcrossThreads() async throws {
        let object = try serializer.responseObject(for: httpResponse(), data: Data(#"{"k":[1]}"#.utf8))
        let count = await Task.detached { (object as? [String: Any])?.count }.value
        XCTAssertEqual(count, 1)
    }
}
