import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class CompoundResponseSerializerTests: XCTestCase {
    let compound = CompoundResponseSerializer(responseSerializers: [JSONResponseSerializer(), XMLParserResponseSerializer()])

    func testFirstSerializerThatYieldsAnObjectWins() throws {
        let object = try compound.responseObject(for: httpResponse(contentType: "application/json"), data: Data(#"{"k":1}"#.utf8))
        XCTAssertEqual((object as? [String: Any])?["k"] as? Int, 1)
    }

    func testLaterSerializerIsTriedWhenEarlierOnesFail() throws {
        let object = try compound.responseObject(for: httpResponse(contentType: "text/xml"), data: Data("<a/>".utf8))
        XCTAssertEqual((object as? XMLResponse)?.data, Data("<a/>".utf8))
    }

    func testFirstErrorIsThrownWhenNoSerializerYieldsAnObject() {
        XCTAssertThrowsError(try compound.responseObject(for: httpResponse(contentType: "text/html"), data: Data("<p>".utf8))) {
            XCTAssertEqual(($0 as? ResponseSerializationError)?.reason, .unacceptableContentType("text/html"))
        }
    }

    func testNilIsReturnedWhenEverySerializerYieldsNothing() throws {
        XCTAssertNil(try compound.responseObject(for: httpResponse(status: 204, contentType: nil), data: Data()))
    }
}
