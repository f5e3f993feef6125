import AFSerialization
import Foundation
import TestSupport
import XCTest

final class QueryStringEncodingTests: XCTestCase {
    func testReferenceExampleEncodesToExactBytes() throws {
        let parameters: [String: Any] = ["q": "a+b/c?", "ids": Set([3, 1]), "user": ["name": "Al B", "tags": ["x", "y"]]]
        XCTAssertEqual(
            try QueryStringEncoding.queryString(from: parameters),
            "ids=1&ids=3&q=a%2Bb/c?&user%5Bname%5D=Al%20B&user%5Btags%5D%5B%5D=x&user%5Btags%5D%5B%5D=y")
    }

    func testDictionaryKeysAreSortedByLiteralCaseSensitiveCompare() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["b": 1, "B": 2, "a": 3, "_": 4]), "B=2&_=4&a=3&b=1")
    }

    func testNestedDictionariesUseBracketedKeysSortedAtEveryLevel() throws {
        let parameters: [String: Any] = ["outer": ["z": ["y": 1, "x": 2], "a": "v"]]
        XCTAssertEqual(
            try QueryStringEncoding.queryString(from: parameters),
            "outer%5Ba%5D=v&outer%5Bz%5D%5Bx%5D=2&outer%5Bz%5D%5By%5D=1")
    }

    func testArraysRepeatTheKeyWithEmptyBracketsInOrder() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["k": ["b", "a", "c"]]), "k%5B%5D=b&k%5B%5D=a&k%5B%5D=c")
    }

    func testSetsRepeatThePlainKeyInSortedOrder() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["k": Set(["b", "c", "a"])]), "k=a&k=b&k=c")
    }

    func testSetMembersSortByStringForm() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["n": Set([3, 10, 1])]), "n=1&n=10&n=3")
    }

    func testNilAndNSNullValuesGiveABareKey() throws {
        let parameters: [String: Any] = ["a": NSNull(), "b": Optional<String>.none as Any, "c": "x"]
        XCTAssertEqual(try QueryStringEncoding.queryString(from: parameters), "a&b&c=x")
    }

    func testBooleansEncodeAsOneAndZero() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["t": true, "f": false]), "f=0&t=1")
    }

    func testNumbersUseTheirStringForm() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["i": 42, "d": 2.5, "n": -7]), "d=2.5&i=42&n=-7")
    }

    func testIntegralDoublesDropTheFraction() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["a": 42.0, "b": 0.1, "c": -3.0, "d": 1e20]), "a=42&b=0.1&c=-3&d=1e%2B20")
    }

    func testEncodableDoublesFollowTheSameNumberForm() throws {
        struct Page: Encodable { let size: Double; let ratio: Float }
        XCTAssertEqual(try QueryStringEncoding.queryString(from: Page(size: 20, ratio: 0.1)), "ratio=0.1&size=20")
    }

    func testDataValuesArePercentEncodedByteByByte() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["d": Data([0x00, 0x41, 0xFF, 0x20])]), "d=%00A%FF%20")
    }

    func testEmptyDictionaryGivesEmptyString() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: [String: Any]()), "")
    }

    func testEmptyNestedCollectionsContributeNoPairs() throws {
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["a": [String](), "b": [String: Int](), "c": 1]), "c=1")
    }

    func testTopLevelArrayIsRejected() {
        XCTAssertThrowsError(try QueryStringEncoding.queryString(from: ["a", "b"])) { error in
            XCTAssertEqual(error as? RequestSerializationError, .invalidQueryParameters)
        }
    }

    func testNonStringDictionaryKeysUseTheirStringForm() throws {
        let parameters: [AnyHashable: Any] = [2: "two", 1: "one"]
        XCTAssertEqual(try QueryStringEncoding.queryString(from: parameters), "1=one&2=two")
    }

    func testFoundationCollectionsEncodeLikeSwiftOnes() throws {
        let parameters = NSDictionary(dictionary: ["a": NSArray(array: ["x", "y"]), "s": NSSet(array: ["q", "p"])])
        XCTAssertEqual(try QueryStringEncoding.queryString(from: parameters), "a%5B%5D=x&a%5B%5D=y&s=p&s=q")
    }

    func testEncodableEncodesLikeTheEquivalentDictionary() throws {
        struct Filter: Encodable { let tags: [String]; let range: Range }
        struct Range: Encodable { let from: Int; let to: Int }
        struct Search: Encodable { let query: String; let page: Int; let exact: Bool; let filter: Filter; let note: String? }
        let search = Search(query: "a b", page: 2, exact: true, filter: Filter(tags: ["x", "y"], range: Range(from: 1, to: 9)), note: nil)
        let dictionary: [String: Any] = [
            "query": "a b", "page": 2, "exact": true,
            "filter": ["tags": ["x", "y"], "range": ["from": 1, "to": 9]],
        ]
        XCTAssertEqual(try QueryStringEncoding.queryString(from: search), try QueryStringEncoding.queryString(from: dictionary))
    }

    func testEncodableDatesEncodeAsISO8601AndURLsAsAbsoluteStrings() throws {
        struct Event: Encodable { let at: Date; let link: URL }
        let event = Event(at: Date(timeIntervalSince1970: 0), link: URL(string: "https://example.com/a?b=c")!)
        XCTAssertEqual(
            try QueryStringEncoding.queryString(from: event),
            "at=1970-01-01T00%3A00%3A00Z&link=https%3A//example.com/a?b%3Dc")
    }

    func testEncodableSetsFollowTheSetRuleInSortedOrder() throws {
        struct Tagged: Encodable { let tags: Set<String> }
        XCTAssertEqual(try QueryStringEncoding.queryString(from: Tagged(tags: ["c", "a", "b"])), "tags=a&tags=b&tags=c")
    }

    func testEncodableValuesNestedInADictionaryAreEncoded() throws {
        struct Point: Encodable { let x: Int; let y: Int }
        XCTAssertEqual(try QueryStringEncoding.queryString(from: ["p": Point(x: 1, y: 2)]), "p%5Bx%5D=1&p%5By%5D=2")
    }

    func testEncodableThatFailsToEncodeThrowsEncodingFailed() {
        struct Broken: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "nope"))
            }
        }
        XCTAssertThrowsError(try QueryStringEncoding.queryString(from: ["b": Broken()])) { error in
            guard case .encodingFailed = error as? RequestSerializationError else {
                return XCTFail("expected encodingFailed, got \(error)")
            }
        }
    }
}
