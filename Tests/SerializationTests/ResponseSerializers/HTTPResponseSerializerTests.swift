import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class HTTPResponseSerializerTests: XCTestCase {
    let serializer = HTTPResponseSerializer()

    func testEvery2xxStatusCodePasses() {
        for status in 200..<300 {
            XCTAssertNoThrow(try serializer.responseObject(for: httpResponse(status: status), data: Data("x".utf8)), "\(status)")
        }
    }

    func testEvery4xxAnd5xxStatusCodeFailsWithCode1011() {
        for status in 400..<600 {
            XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(status: status), data: nil), "\(status)") { error in
                XCTAssertEqual((error as? ResponseSerializationError)?.reason, .unacceptableStatusCode(status))
                XCTAssertEqual((error as NSError).code, -1011)
            }
        }
    }

    func testStatusErrorDescriptionMatchesAFNetworking() {
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(status: 404), data: nil)) {
            XCTAssertEqual(($0 as NSError).localizedDescription, "Request failed: not found (404)")
        }
    }

    func test205WithoutContentTypeAndEmptyBodyPasses() {
        var serializer = self.serializer
        serializer.acceptableContentTypes = ["application/json"]
        XCTAssertNoThrow(try serializer.responseObject(for: httpResponse(status: 205, contentType: nil), data: Data()))
    }

    func testBodyIsReturnedUnchanged() throws {
        XCTAssertEqual(try serializer.responseObject(for: httpResponse(), data: Data([1, 2, 3])), Data([1, 2, 3]))
    }

    func testAnyContentTypeIsAcceptedByDefault() {
        XCTAssertNoThrow(try serializer.responseObject(for: httpResponse(contentType: "image/x-whatever"), data: Data("x".utf8)))
    }

    func testUnacceptableContentTypeFailsWithCode1016() {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["application/json"])
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(contentType: "text/html"), data: Data("<p>".utf8))) { error in
            XCTAssertEqual((error as? ResponseSerializationError)?.reason, .unacceptableContentType("text/html"))
            XCTAssertEqual((error as NSError).code, -1016)
            XCTAssertEqual((error as NSError).localizedDescription, "Request failed: unacceptable content-type: text/html")
        }
    }

    func testUnacceptableContentTypeWithEmptyBodyPasses() {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["application/json"])
        XCTAssertNoThrow(try serializer.responseObject(for: httpResponse(contentType: "text/html"), data: Data()))
    }

    func testStatusErrorWrapsTheContentTypeError() throws {
        let serializer = HTTPResponseSerializer(acceptableContentTypes: ["application/json"])
        let body = Data("<p>oops</p>".utf8)
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(status: 500, contentType: "text/html"), data: body)) { error in
            let top = error as? ResponseSerializationError
            XCTAssertEqual(top?.reason, .unacceptableStatusCode(500))
            let underlying = top?.underlyingError as? ResponseSerializationError
            XCTAssertEqual(underlying?.reason, .unacceptableContentType("text/html"))
            XCTAssertEqual(underlying?.data, body)
            let nsUnderlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            XCTAssertEqual(nsUnderlying?.code, -1016)
        }
    }

    func testErrorCarriesResponseAndBodyDirectlyAndInUserInfo() {
        let response = httpResponse(status: 422, url: "http://example.com/items")
        let body = Data(#"{"message":"invalid"}"#.utf8)
        XCTAssertThrowsError(try serializer.responseObject(for: response, data: body)) { error in
            let typed = error as? ResponseSerializationError
            XCTAssertIdentical(typed?.response, response)
            XCTAssertEqual(typed?.data, body)
            XCTAssertEqual(typed?.statusCode, 422)
            let nsError = error as NSError
            XCTAssertEqual(nsError.domain, "com.alamofire.error.serialization.response")
            XCTAssertIdentical(nsError.userInfo["com.alamofire.serialization.response.error.response"] as? HTTPURLResponse, response)
            XCTAssertEqual(nsError.userInfo["com.alamofire.serialization.response.error.data"] as? Data, body)
            XCTAssertEqual(nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL, URL(string: "http://example.com/items"))
        }
    }

    func testNilStatusCodesAcceptEveryStatus() {
        let serializer = HTTPResponseSerializer(acceptableStatusCodes: nil)
        XCTAssertNoThrow(try serializer.responseObject(for: httpResponse(status: 503), data: nil))
    }

    func testNonHTTPResponseIsNotValidated() throws {
        let response = URLResponse(url: URL(string: "file:///tmp/x")!, mimeType: "text/plain", expectedContentLength: 1, textEncodingName: nil)
        XCTAssertEqual(try serializer.responseObject(for: response, data: Data("x".utf8)), Data("x".utf8))
    }
}
