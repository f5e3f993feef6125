import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class PropertyListResponseSerializerTests: XCTestCase {
    let serializer = PropertyListResponseSerializer()

    private func plist(_ object: Any, format: PropertyListSerialization.PropertyListFormat = .xml) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0)
    }

    func testXMLPropertyListIsParsed() throws {
        let object = try serializer.responseObject(for: httpResponse(contentType: "application/x-plist"), data: plist(["k": "v", "n": 3]))
        let dictionary = try XCTUnwrap(object as? [String: Any])
        XCTAssertEqual(dictionary["k"] as? String, "v")
        XCTAssertEqual(dictionary["n"] as? Int, 3)
    }

    func testBinaryPropertyListIsParsed() throws {
        let object = try serializer.responseObject(for: httpResponse(contentType: "application/x-plist"), data: plist(["d": Data([1, 2])], format: .binary))
        XCTAssertEqual((object as? [String: Any])?["d"] as? Data, Data([1, 2]))
    }

    func testDefaultAcceptableContentType() {
        XCTAssertEqual(serializer.acceptableContentTypes, ["application/x-plist"])
    }

    func testWrongContentTypeIsRejected() throws {
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(contentType: "application/json"), data: plist(["k": "v"])))
    }

    func testInvalidPropertyListIsAnUndecodableBodyError() {
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(contentType: "application/x-plist"), data: Data("<plist><dict><key>".utf8))) {
            XCTAssertEqual(($0 as? ResponseSerializationError)?.reason, .undecodableBody("invalid property list"))
        }
    }

    func testEmptyBodyGivesNil() throws {
        XCTAssertNil(try serializer.responseObject(for: httpResponse(status: 204, contentType: nil), data: Data()))
    }

    func testStatusFailureIsReported() throws {
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(status: 500, contentType: "application/x-plist"), data: plist(["k": "v"]))) {
            XCTAssertEqual(($0 as? ResponseSerializationError)?.reason, .unacceptableStatusCode(500))
        }
    }
}
