import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class JSONRequestSerializerTests: XCTestCase {
    let serializer = JSONRequestSerializer()

    func testParametersAreSentAsAJSONBody() throws {
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: ["key": "value", "n": 1])
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/json")
        let body = try XCTUnwrap(request.httpBody)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: body) as? [String: Any])
        XCTAssertEqual(object["key"] as? String, "value")
        XCTAssertEqual(object["n"] as? Int, 1)
    }

    func testSortedKeysWritingOptionGivesExactBytes() throws {
        let serializer = JSONRequestSerializer(writingOptions: [.sortedKeys])
        let parameters: [String: Any] = ["b": [1, 2], "a": ["z": NSNull(), "y": true], "c": "s/t"]
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: parameters)
        XCTAssertEqual(String(decoding: try XCTUnwrap(request.httpBody), as: UTF8.self), #"{"a":{"y":true,"z":null},"b":[1,2],"c":"s\/t"}"#)
    }

    func testNilParametersGiveNoBodyAndNoContentType() throws {
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: nil)
        XCTAssertNil(request.httpBody)
        XCTAssertNil(request.value(forHTTPHeaderField: "Content-Type"))
    }

    func testGETFallsBackToTheQueryString() throws {
        let request = try serializer.request(method: "GET", urlString: "http://example.com", parameters: ["key": "value"])
        XCTAssertEqual(request.url?.absoluteString, "http://example.com?key=value")
        XCTAssertNil(request.httpBody)
    }

    func testTopLevelArrayIsAValidBody() throws {
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: [1, 2, 3])
        XCTAssertEqual(request.httpBody, Data("[1,2,3]".utf8))
    }

    func testInvalidJSONObjectThrowsCode1016() {
        for parameters: Any in [["n": Double.nan], ["d": Data([1])], "bare string"] {
            XCTAssertThrowsError(try serializer.request(method: "POST", urlString: "http://example.com", parameters: parameters)) { error in
                XCTAssertEqual(error as? RequestSerializationError, .invalidJSONParameters)
                let nsError = error as NSError
                XCTAssertEqual(nsError.domain, "com.alamofire.error.serialization.request")
                XCTAssertEqual(nsError.code, -1016)
                XCTAssertEqual(nsError.localizedFailureReason, "The `parameters` argument is not valid JSON.")
            }
        }
    }

    func testEncodableParametersBecomeJSONWithTheSameValueRules() throws {
        struct Item: Encodable { let name: String; let count: Int; let done: Bool; let at: Date }
        let serializer = JSONRequestSerializer(writingOptions: [.sortedKeys])
        let request = try serializer.request(
            method: "PUT", urlString: "http://example.com",
            parameters: [Item(name: "a", count: 2, done: false, at: Date(timeIntervalSince1970: 0))])
        XCTAssertEqual(
            String(decoding: try XCTUnwrap(request.httpBody), as: UTF8.self),
            #"[{"at":"1970-01-01T00:00:00Z","count":2,"done":false,"name":"a"}]"#)
    }

    func testExistingContentTypeIsKept() throws {
        var request = URLRequest(url: URL(string: "http://example.com")!)
        request.httpMethod = "POST"
        request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let serialized = try serializer.request(bySerializing: request, withParameters: ["k": "v"])
        XCTAssertEqual(serialized.value(forHTTPHeaderField: "Content-Type"), "application/vnd.api+json")
    }

    func testDefaultHeadersAreAdded() throws {
        serializer.setValue("v", forHTTPHeaderField: "X-Default")
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: ["k": "v"])
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Default"), "v")
    }
}
