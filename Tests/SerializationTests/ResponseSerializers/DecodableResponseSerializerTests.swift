import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class DecodableResponseSerializerTests: XCTestCase {
    struct User: Decodable, Sendable, Equatable {
        let id: Int
        let displayName: String
    }

    func testBodyIsDecodedAsTheType() throws {
        let serializer = DecodableResponseSerializer(User.self)
        XCTAssertEqual(
            try serializer.responseObject(for: httpResponse(), data: Data(#"{"id":1,"displayName":"Al"}"#.utf8)),
            User(id: 1, displayName: "Al"))
    }

    func testConfiguredDecoderIsUsed() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let serializer = DecodableResponseSerializer(User.self, decoder: decoder)
        XCTAssertEqual(
            try serializer.responseObject(for: httpResponse(), data: Data(#"{"id":2,"display_name":"Bo"}"#.utf8)),
            User(id: 2, displayName: "Bo"))
    }

    func testBodyOfTheWrongShapeIsAnUndecodableBodyError() {
        let body = Data(#"{"id":"x"}"#.utf8)
        XCTAssertThrowsError(try DecodableResponseSerializer(User.self).responseObject(for: httpResponse(), data: body)) { error in
            let typed = error as? ResponseSerializationError
            XCTAssertEqual(typed?.reason, .undecodableBody("cannot decode User"))
            XCTAssertTrue(typed?.underlyingError is DecodingError)
            XCTAssertEqual(typed?.data, body)
        }
    }

    func testEmptyBodyIsAnError() {
        XCTAssertThrowsError(try DecodableResponseSerializer(User.self).responseObject(for: httpResponse(), data: Data()))
    }

    func testStatusIsValidatedBeforeDecoding() {
        XCTAssertThrowsError(try DecodableResponseSerializer(User.self).responseObject(for: httpResponse(status: 404), data: Data("{}".utf8))) {
            XCTAssertEqual(($0 as? ResponseSerializationError)?.reason, .unacceptableStatusCode(404))
        }
    }
}
