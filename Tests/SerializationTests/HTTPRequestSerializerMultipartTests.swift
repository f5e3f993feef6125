import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

final class HTTPRequestSerializerMultipartTests: XCTestCase {
    let serializer = HTTPRequestSerializer()
    var directory: TemporaryDirectory!

    override func setUpWithError() throws { directory = try TemporaryDirectory() }
    override func tearDown() { directory.remove() }

    private func boundary(of request: URLRequest) throws -> String {
        let contentType = try XCTUnwrap(request.value(forHTTPHeaderField: "Content-Type"))
        XCTAssertTrue(contentType.hasPrefix("multipart/form-data; boundary=Boundary+"), contentType)
        return String(contentType.dropFirst("multipart/form-data; boundary=".count))
    }

    func testRequestHasMultipartContentTypeAStreamAndNoContentLength() throws {
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com/upload") { form in
            try form.appendPart(withForm: "v", name: "n")
        }
        XCTAssertNotNil(request.httpBodyStream as? MultipartBodyStream)
        XCTAssertNil(request.value(forHTTPHeaderField: "Content-Length"))
        XCTAssertNil(request.httpBody)
        let body = try readAll(try XCTUnwrap(request.httpBodyStream))
        XCTAssertEqual(request.multipartContentLength, UInt64(body.count))
        XCTAssertTrue(String(decoding: body, as: UTF8.self).hasPrefix("--\(try boundary(of: request))\r\n"))
    }

    func testParametersBecomeFormFieldsFlattenedByQueryRules() throws {
        let parameters: [String: Any] = ["user": ["name": "Al", "tags": ["x", "y"]], "blob": Data([0xFF, 0x00]), "none": NSNull(), "n": 5]
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com", parameters: parameters)
        let b = try boundary(of: request)
        var expected = Data()
        func field(_ name: String, _ value: Data, first: Bool = false) {
            expected.append(Data("\(first ? "" : "\r\n")--\(b)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n".utf8))
            expected.append(value)
        }
        field("blob", Data([0xFF, 0x00]), first: true)
        field("n", Data("5".utf8))
        field("none", Data())
        field("user[name]", Data("Al".utf8))
        field("user[tags][]", Data("x".utf8))
        field("user[tags][]", Data("y".utf8))
        expected.append(Data("\r\n--\(b)--\r\n".utf8))
        XCTAssertEqual(try readAll(try XCTUnwrap(request.httpBodyStream)), expected)
    }

    func testNoPartsGiveNoBodyAndNoMultipartHeaders() throws {
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com", parameters: nil) { _ in }
        XCTAssertNil(request.httpBodyStream)
        XCTAssertNil(request.httpBody)
        XCTAssertNil(request.value(forHTTPHeaderField: "Content-Type"))
        XCTAssertNil(request.multipartContentLength)
    }

    func testGETAndHEADAreRefused() {
        for method in ["GET", "HEAD", "get"] {
            XCTAssertThrowsError(try serializer.multipartFormRequest(method: method, urlString: "http://example.com")) {
                XCTAssertEqual($0 as? RequestSerializationError, .multipartNotAllowed(method: method))
            }
        }
    }

    func testErrorThrownByTheConstructingBlockPropagates() {
        struct Stop: Error, Equatable {}
        XCTAssertThrowsError(try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com") { _ in throw Stop() }) {
            XCTAssertEqual($0 as? Stop, Stop())
        }
    }

    func testDefaultHeadersAreAdded() throws {
        serializer.setValue("v", forHTTPHeaderField: "X-Default")
        let request = try serializer.multipartFormRequest(method: "PUT", urlString: "http://example.com") { try $0.appendPart(withForm: "v", name: "n") }
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Default"), "v")
        XCTAssertEqual(request.httpMethod, "PUT")
    }

    func testWritingTheBodyToAFileGivesTheSameBytesAndAContentLength() throws {
        let file = try directory.file("big.bin", contents: Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) }))
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com", parameters: ["a": "b"]) { form in
            try form.appendPart(withFileURL: file, name: "file")
        }
        let b = try boundary(of: request)
        var expected = Data("--\(b)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nb".utf8)
        expected.append(Data("\r\n--\(b)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n".utf8))
        expected.append(Data("Content-Type: application/octet-stream\r\n\r\n".utf8))
        expected.append(try Data(contentsOf: file))
        expected.append(Data("\r\n--\(b)--\r\n".utf8))
        XCTAssertEqual(request.multipartContentLength, UInt64(expected.count))
        let output = directory.url.appendingPathComponent("body.out")
        let written = try serializer.request(withMultipartFormRequest: request, writingStreamContentsToFile: output)
        XCTAssertNil(written.httpBodyStream)
        XCTAssertEqual(try Data(contentsOf: output), expected)
        XCTAssertEqual(written.value(forHTTPHeaderField: "Content-Length"), String(expected.count))
        XCTAssertEqual(written.value(forHTTPHeaderField: "Content-Type"), request.value(forHTTPHeaderField: "Content-Type"))
    }

    func testWritingABodyWhoseSourceFailsThrowsTheSourceError() throws {
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com") { form in
            try form.appendPart(with: InputStream(data: Data(count: 3)), name: "s", fileName: "s", length: 9, mimeType: "a/b")
        }
        XCTAssertThrowsError(try serializer.request(withMultipartFormRequest: request, writingStreamContentsToFile: directory.url.appendingPathComponent("x"))) {
            XCTAssertEqual($0 as? RequestSerializationError, .bodySourceEndedEarly(expected: 9, received: 3))
        }
    }

    func testWritingToANonFileURLOrWithoutAStreamThrows() throws {
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com") { try $0.appendPart(withForm: "v", name: "n") }
        let remote = URL(string: "https://example.com/x")!
        XCTAssertThrowsError(try serializer.request(withMultipartFormRequest: request, writingStreamContentsToFile: remote)) {
            XCTAssertEqual($0 as? RequestSerializationError, .notAFileURL(remote))
        }
        let plain = URLRequest(url: URL(string: "http://example.com")!)
        XCTAssertThrowsError(try serializer.request(withMultipartFormRequest: plain, writingStreamContentsToFile: directory.url.appendingPathComponent("y"))) {
            XCTAssertEqual($0 as? RequestSerializationError, .missingBodyStream)
        }
    }

    func testWritingIntoAMissingDirectoryThrowsCannotWriteBody() throws {
        let request = try serializer.multipartFormRequest(method: "POST", urlString: "http://example.com") { try $0.appendPart(withForm: "v", name: "n") }
        let target = directory.url.appendingPathComponent("no/such/dir/body")
        XCTAssertThrowsError(try serializer.request(withMultipartFormRequest: request, writingStreamContentsToFile: target)) {
            guard case .cannotWriteBody = $0 as? RequestSerializationError else { return XCTFail("got \($0)") }
        }
    }
}
