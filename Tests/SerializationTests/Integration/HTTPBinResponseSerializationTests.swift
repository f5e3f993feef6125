import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// Response serializers applied to real replies from the local httpbin.
final class HTTPBinResponseSerializationTests: XCTestCase {
    func testJSONReplyIsParsed() async throws {
        let (response, data) = try await HTTPBin.fetch("/json")
        let object = try XCTUnwrap(try JSONResponseSerializer().responseObject(for: response, data: data) as? [String: Any])
        XCTAssertNotNil(object["slideshow"] as? [String: Any])
    }

    func testJSONReplyDecodesIntoAType() async throws {
        struct Slideshow: Decodable, Sendable { let slideshow: Show }
        struct Show: Decodable, Sendable { let title: String }
        let (response, data) = try await HTTPBin.fetch("/json")
        XCTAssertEqual(try DecodableResponseSerializer(Slideshow.self).responseObject(for: response, data: data).slideshow.title, "Sample Slide Show")
    }

    func testXMLReplyIsAccepted() async throws {
        let (response, data) = try await HTTPBin.fetch("/xml")
        let result = try XCTUnwrap(try XMLParserResponseSerializer().responseObject(for: response, data: data))
        XCTAssertTrue(result.makeParser().parse())
    }

    func testHTMLReplyIsAnUnacceptableContentTypeForJSON() async throws {
        let (response, data) = try await HTTPBin.fetch("/html")
        XCTAssertThrowsError(try JSONResponseSerializer().responseObject(for: response, data: data)) {
            XCTAssertEqual(($0 as? ResponseSerializationError)?.reason, .unacceptableContentType("text/html"))
        }
    }

    func testTeapotStatusFailsWithResponseAndBody() async throws {
        let (response, data) = try await HTTPBin.fetch("/status/418")
        XCTAssertThrowsError(try HTTPResponseSerializer().responseObject(for: response, data: data)) { error in
            let typed = error as? ResponseSerializationError
            XCTAssertEqual(typed?.reason, .unacceptableStatusCode(418))
            XCTAssertEqual(typed?.data, data)
            XCTAssertFalse(data.isEmpty)
            XCTAssertEqual((error as NSError).code, -1011)
        }
    }

    func testNoContentReplyGivesNilJSON() async throws {
        let (response, data) = try await HTTPBin.fetch("/status/204")
        XCTAssertNil(try JSONResponseSerializer().responseObject(for: response, data: data))
    }
}
