import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class PropertyListRequestSerializerTests: XCTestCase {
    func testParametersAreSentAsAnXMLPropertyList() throws {
        let serializer = PropertyListRequestSerializer()
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: ["key": "value", "list": [1, 2]])
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/x-plist")
        let body = try XCTUnwrap(request.httpBody)
        XCTAssertTrue(String(decoding: body, as: UTF8.self).hasPrefix("<?xml"))
        let object = try XCTUnwrap(PropertyListSerialization.propertyList(from: body, format: nil) as? [String: Any])
        XCTAssertEqual(object["key"] as? String, "value")
        XCTAssertEqual(object["list"] as? [Int], [1, 2])
    }

    func testInvalidPropertyListObjectThrowsCode1016() {
        let serializer = PropertyListRequestSerializer()
        XCTAssertThrowsError(try serializer.request(method: "POST", urlString: "http://example.com", parameters: ["null": NSNull()])) { error in
            guard case .invalidPropertyListParameters = error as? RequestSerializationError else {
                return XCTFail("expected invalidPropertyListParameters, got \(error)")
            }
            XCTAssertEqual((error as NSError).code, -1016)
        }
    }

    func testDataValuesAreKeptAsPropertyListData() throws {
        let serializer = PropertyListRequestSerializer(format: .binary)
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: ["d": Data([0, 1, 2])])
        let object = try XCTUnwrap(PropertyListSerialization.propertyList(from: try XCTUnwrap(request.httpBody), format: nil) as? [String: Any])
        XCTAssertEqual(object["d"] as? Data, Data([0, 1, 2]))
    }
}
