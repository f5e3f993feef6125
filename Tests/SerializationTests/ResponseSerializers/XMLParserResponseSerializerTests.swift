import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport
import XCTest

final class XMLParserResponseSerializerTests: XCTestCase {
    let serializer = XMLParserResponseSerializer()

    private final class ElementCollector: NSObject, XMLParserDelegate {
        var names: [String] = []
        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            names.append(elementName)
        }
    }

    func testValidXMLGivesAParserOverTheBody() throws {
        let result = try XCTUnwrap(try serializer.responseObject(for: httpResponse(contentType: "application/xml"), data: Data("<a><b/><c/></a>".utf8)))
        let parser = result.makeParser()
        let collector = ElementCollector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse())
        XCTAssertEqual(collector.names, ["a", "b", "c"])
    }

    func testDefaultAcceptableContentTypes() {
        XCTAssertEqual(serializer.acceptableContentTypes, ["application/xml", "text/xml"])
        XCTAssertNoThrow(try serializer.responseObject(for: httpResponse(contentType: "text/xml"), data: Data("<a/>".utf8)))
    }

    func testJSONContentTypeIsRejected() {
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(contentType: "application/json"), data: Data("{}".utf8))) {
            XCTAssertEqual(($0 as? ResponseSerializationError)?.reason, .unacceptableContentType("application/json"))
        }
    }

    func testEmptyBodyGivesNil() throws {
        XCTAssertNil(try serializer.responseObject(for: httpResponse(status: 204, contentType: nil), data: Data()))
    }

    func testStatusFailureIsReported() {
        XCTAssertThrowsError(try serializer.responseObject(for: httpResponse(status: 404, contentType: "text/xml"), data: Data("<e/>".utf8))) {
            XCTAssertEqual(($0 as? ResponseSerializationError)?.reason, .unacceptableStatusCode(404))
        }
    }
}
