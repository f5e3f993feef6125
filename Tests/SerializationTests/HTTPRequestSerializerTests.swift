import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class HTTPRequestSerializerTests: XCTestCase {
    let serializer = HTTPRequestSerializer()

    func testPOSTParametersAreSentAsAFormBody() throws {
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: ["key": "value"])
        XCTAssertEqual(request.httpBody, Data("key=value".utf8))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertEqual(request.url?.absoluteString, "http://example.com")
    }

    func testPOSTWithNilParametersHasAnEmptyFormBody() throws {
        let request = try serializer.request(method: "POST", urlString: "http://example.com", parameters: nil)
        XCTAssertEqual(request.httpBody, Data())
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded")
    }

    func testGETParametersGoIntoTheQuery() throws {
        let request = try serializer.request(method: "GET", urlString: "http://example.com", parameters: ["key": "value"])
        XCTAssertEqual(request.url?.absoluteString, "http://example.com?key=value")
        XCTAssertNil(request.httpBody)
        XCTAssertNil(request.value(forHTTPHeaderField: "Content-Type"))
    }

    func testGETWithEmptyDictionaryHasNoTrailingQuestionMark() throws {
        let request = try serializer.request(method: "GET", urlString: "http://example.com", parameters: [String: Any]())
        XCTAssertEqual(request.url?.absoluteString, "http://example.com")
    }

    func testGETWithNilParametersLeavesTheURLAlone() throws {
        let request = try serializer.request(method: "GET", urlString: "http://example.com/a?b=c", parameters: nil)
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/a?b=c")
    }

    func testGETAppendsWithAmpersandWhenTheURLHasAQuery() throws {
        let request = try serializer.request(method: "GET", urlString: "http://example.com/a?b=c", parameters: ["d": "e"])
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/a?b=c&d=e")
    }

    func testQueryGoesBeforeTheFragment() throws {
        let request = try serializer.request(method: "GET", urlString: "http://example.com/a#frag", parameters: ["d": "e"])
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/a?d=e#frag")
    }

    func testHEADAndDELETEEncodeParametersInTheURI() throws {
        for method in ["HEAD", "DELETE", "get", "Delete"] {
            let request = try serializer.request(method: method, urlString: "http://example.com", parameters: ["k": "v"])
            XCTAssertEqual(request.url?.absoluteString, "http://example.com?k=v", method)
            XCTAssertNil(request.httpBody, method)
        }
    }

    func testPUTAndPATCHEncodeParametersInTheBody() throws {
        for method in ["PUT", "PATCH", "OPTIONS"] {
            let request = try serializer.request(method: method, urlString: "http://example.com", parameters: ["k": "v"])
            XCTAssertEqual(request.httpBody, Data("k=v".utf8), method)
        }
    }

    func testMethodsEncodingParametersInURICanBeChanged() throws {
        serializer.httpMethodsEncodingParametersInURI = ["get", "POST"]
        let post = try serializer.request(method: "POST", urlString: "http://example.com", parameters: ["k": "v"])
        XCTAssertEqual(post.url?.absoluteString, "http://example.com?k=v")
        let delete = try serializer.request(method: "DELETE", urlString: "http://example.com", parameters: ["k": "v"])
        XCTAssertEqual(delete.httpBody, Data("k=v".utf8))
    }

    func testExistingContentTypeIsKept() throws {
        var request = URLRequest(url: URL(string: "http://example.com")!)
        request.httpMethod = "POST"
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let serialized = try serializer.request(bySerializing: request, withParameters: ["k": "v"])
        XCTAssertEqual(serialized.value(forHTTPHeaderField: "Content-Type"), "text/plain")
    }

    func testCustomQueryStringSerializationReplacesTheDefault() throws {
        serializer.setQueryStringSerialization { _, parameters in
            let dictionary = parameters as? [String: String] ?? [:]
            return dictionary.map { "\($0.key):\($0.value)" }.joined()
        }
        let request = try serializer.request(method: "GET", urlString: "http://example.com", parameters: ["key": "value"])
        XCTAssertEqual(request.url?.query, "key:value")
    }

    func testCustomQueryStringSerializationErrorAbortsSerialization() {
        struct Refused: Error, Equatable {}
        serializer.setQueryStringSerialization { _, _ in throw Refused() }
        XCTAssertThrowsError(try serializer.request(method: "GET", urlString: "http://example.com", parameters: ["k": "v"])) {
            XCTAssertEqual($0 as? Refused, Refused())
        }
    }

    func testRemovingTheCustomQueryStringSerializationRestoresTheDefault() throws {
        serializer.setQueryStringSerialization { _, _ in "custom" }
        serializer.setQueryStringSerialization(nil)
        let request = try serializer.request(method: "GET", urlString: "http://example.com", parameters: ["k": "v"])
        XCTAssertEqual(request.url?.query, "k=v")
    }

    func testHeaderCanBeSetReadAndRemovedWithNil() {
        serializer.setValue("value", forHTTPHeaderField: "X-Custom")
        XCTAssertEqual(serializer.value(forHTTPHeaderField: "X-Custom"), "value")
        XCTAssertEqual(serializer.httpRequestHeaders["X-Custom"], "value")
        serializer.setValue(nil, forHTTPHeaderField: "X-Custom")
        XCTAssertNil(serializer.value(forHTTPHeaderField: "X-Custom"))
        XCTAssertNil(serializer.httpRequestHeaders["X-Custom"])
    }

    func testHeaderNamesCompareCaseInsensitively() {
        serializer.setValue("one", forHTTPHeaderField: "X-Custom")
        serializer.setValue("two", forHTTPHeaderField: "x-custom")
        XCTAssertEqual(serializer.value(forHTTPHeaderField: "X-CUSTOM"), "two")
        XCTAssertEqual(serializer.httpRequestHeaders.keys.filter { $0.lowercased() == "x-custom" }.count, 1)
    }

    func testDefaultHeadersAreAddedToRequests() throws {
        serializer.setValue("value", forHTTPHeaderField: "X-Custom")
        let request = try serializer.request(method: "GET", urlString: "http://example.com", parameters: nil)
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Custom"), "value")
    }

    func testHeadersAlreadyOnTheRequestWinOverDefaults() throws {
        serializer.setValue("default", forHTTPHeaderField: "X-Custom")
        var request = URLRequest(url: URL(string: "http://example.com")!)
        request.setValue("own", forHTTPHeaderField: "x-custom")
        let serialized = try serializer.request(bySerializing: request, withParameters: nil)
        XCTAssertEqual(serialized.value(forHTTPHeaderField: "X-Custom"), "own")
    }

    func testBasicAuthorizationHeaderIsBase64OfUTF8Credentials() {
        serializer.setAuthorizationHeaderField(username: "user", password: "pässword")
        XCTAssertEqual(serializer.value(forHTTPHeaderField: "Authorization"), "Basic dXNlcjpww6Rzc3dvcmQ=")
    }

    func testClearAuthorizationHeaderRemovesIt() {
        serializer.setAuthorizationHeaderField(username: "user", password: "password")
        serializer.clearAuthorizationHeader()
        XCTAssertNil(serializer.value(forHTTPHeaderField: "Authorization"))
    }

    func testDefaultAcceptLanguageListsPreferredLanguagesWithQuality() throws {
        let value = try XCTUnwrap(serializer.value(forHTTPHeaderField: "Accept-Language"))
        let entries = value.components(separatedBy: ", ")
        XCTAssertEqual(entries.count, min(6, Locale.preferredLanguages.count))
        XCTAssertEqual(entries.first, "\(Locale.preferredLanguages[0]);q=1")
        for (index, entry) in entries.enumerated().dropFirst() {
            XCTAssertTrue(entry.hasSuffix(";q=0.\(10 - index)"), entry)
        }
    }

    func testDefaultUserAgentNamesTheExecutableAndOS() throws {
        let agent = try XCTUnwrap(serializer.value(forHTTPHeaderField: "User-Agent"))
        XCTAssertTrue(agent.contains(ProcessInfo.processInfo.operatingSystemVersionString.filter(\.isASCII)), agent)
        XCTAssertTrue(agent.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 }, agent)
    }

    func testRequestPropertiesAreAppliedOnlyWhenSetExplicitly() throws {
        let untouched = try serializer.request(method: "GET", urlString: "http://example.com", parameters: nil)
        let plain = URLRequest(url: URL(string: "http://example.com")!)
        XCTAssertEqual(untouched.timeoutInterval, plain.timeoutInterval)
        XCTAssertEqual(untouched.cachePolicy, plain.cachePolicy)

        serializer.timeoutInterval = 7
        serializer.cachePolicy = .reloadIgnoringLocalCacheData
        serializer.httpShouldHandleCookies = false
        serializer.allowsCellularAccess = false
        serializer.networkServiceType = .background
        let request = try serializer.request(method: "GET", urlString: "http://example.com", parameters: nil)
        XCTAssertEqual(request.timeoutInterval, 7)
        XCTAssertEqual(request.cachePolicy, .reloadIgnoringLocalCacheData)
        XCTAssertFalse(request.httpShouldHandleCookies)
        XCTAssertFalse(request.allowsCellularAccess)
        XCTAssertEqual(request.networkServiceType, .background)
    }

    func testHeaderValueWithCRLFIsRejected() {
        serializer.setValue("ok\r\nX-Injected: yes", forHTTPHeaderField: "X-Custom")
        XCTAssertThrowsError(try serializer.request(method: "GET", urlString: "http://example.com", parameters: nil)) {
            XCTAssertEqual($0 as? RequestSerializationError, .invalidHeader(name: "X-Custom", value: "ok\r\nX-Injected: yes"))
        }
    }

    func testHeaderValueWithBareLineFeedOrNULIsRejected() {
        for value in ["a\nb", "a\rb", "a\u{0}b"] {
            let serializer = HTTPRequestSerializer()
            serializer.setValue(value, forHTTPHeaderField: "X-Custom")
            XCTAssertThrowsError(try serializer.request(method: "POST", urlString: "http://example.com", parameters: nil), value.debugDescription)
        }
    }

    func testHeaderNameThatIsNotATokenIsRejected() {
        for name in ["X-Bad\r\nX-Injected", "X Space", "X:Colon", ""] {
            let serializer = HTTPRequestSerializer()
            serializer.setValue("v", forHTTPHeaderField: name)
            XCTAssertThrowsError(try serializer.request(method: "GET", urlString: "http://example.com", parameters: nil), name.debugDescription) {
                XCTAssertEqual($0 as? RequestSerializationError, .invalidHeader(name: name, value: "v"))
            }
        }
    }

    func testAnInvalidDefaultHeaderRejectsARequestPassedInEvenWhenItCarriesTheField() throws {
        serializer.setValue("ok\r\nX-Injected: yes", forHTTPHeaderField: "X-Custom")
        var request = URLRequest(url: try XCTUnwrap(URL(string: "http://example.com")))
        request.setValue("own", forHTTPHeaderField: "X-Custom")
        XCTAssertThrowsError(try serializer.request(bySerializing: request, withParameters: nil)) {
            XCTAssertEqual($0 as? RequestSerializationError, .invalidHeader(name: "X-Custom", value: "ok\r\nX-Injected: yes"))
        }
    }

    func testAnInvalidDefaultHeaderRejectsAMultipartRequest() {
        serializer.setValue("ok\r\nX-Injected: yes", forHTTPHeaderField: "X-Custom")
        XCTAssertThrowsError(try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com")) {
            XCTAssertEqual($0 as? RequestSerializationError, .invalidHeader(name: "X-Custom", value: "ok\r\nX-Injected: yes"))
        }
    }

    func testAMultipartRequestCarriesTheDefaultHeaders() throws {
        serializer.setValue("v", forHTTPHeaderField: "X-Custom")
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Custom"), "v")
        XCTAssertEqual(request.value(forHTTPHeaderField: "User-Agent"), serializer.value(forHTTPHeaderField: "User-Agent"))
    }

    func testInvalidURLStringThrows() {
        XCTAssertThrowsError(try serializer.request(method: "GET", urlString: "not a url", parameters: nil)) {
            XCTAssertEqual($0 as? RequestSerializationError, .invalidURL("not a url"))
        }
    }

    func testEncodableParametersGoIntoTheQuery() throws {
        struct Search: Encodable { let q: String; let page: Int }
        let request = try serializer.request(method: "GET", urlString: "http://example.com/s", parameters: Search(q: "a b", page: 2))
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/s?page=2&q=a%20b")
    }

    /// A subclass that encodes its superclass through `superEncoder()`, with coding keys that
    /// have no "super" case (which crashed the process before): the superclass's values go
    /// under "super", as JSONEncoder puts them.
    func testSuperEncoderWithoutASuperKeyEncodesUnderSuper() throws {
        class Base: Encodable {
            let id = 7
        }
        final class Derived: Base {
            let name = "n"
            private enum CodingKeys: String, CodingKey { case name }
            override func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)
                try super.encode(to: container.superEncoder())
            }
        }
        let request = try serializer.request(method: "GET", urlString: "http://example.com/s", parameters: Derived())
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/s?name=n&super%5Bid%5D=7")
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Derived())) as? [String: Any]
        XCTAssertEqual((json?["super"] as? [String: Any])?["id"] as? Int, 7, "the layout JSONEncoder gives")
    }
}
