import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// URLSession on Linux re-sends a 307/308-redirected request with an empty body; libcurl
/// re-sends every body that can start over.
final class RedirectTests: XCTestCase {
    private func request(_ method: String, status: Int, body: Data?) throws -> URLRequest {
        var request = URLRequest(url: try HTTPBin.url("/redirect-to?url=/anything&status_code=\(status)"))
        request.httpMethod = method
        request.httpBody = body
        // httpbin echoes a text body as `data` (a form body would go to `form`).
        if body != nil { request.setValue("text/plain", forHTTPHeaderField: "Content-Type") }
        return request
    }

    /// libcurl sends the body again, as URLSession does on Apple platforms; URLSession's own
    /// protocol on Linux would send it empty, so the task fails instead.
    private func assertBodyFollowsOrFails(_ result: Completion, method: String, body: String, file: StaticString = #filePath, line: UInt = #line) {
        if HTTPTransport.underTest == .urlSession {
            guard case .redirectWouldDropBody(let response)? = result.error as? SessionError else {
                return XCTFail("expected redirectWouldDropBody, got \(String(describing: result.error))", file: file, line: line)
            }
            XCTAssertTrue([307, 308].contains(response.statusCode), file: file, line: line)
        } else {
            XCTAssertNil(result.error, file: file, line: line)
            XCTAssertEqual(result.json?["method"] as? String, method, file: file, line: line)
            XCTAssertEqual(result.json?["data"] as? String, body, file: file, line: line)
        }
    }

    func testPOSTRedirectedWith307IsSentAgainWithItsBody() throws {
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: try request("POST", status: 307, body: Data("payload".utf8)), completionHandler: handler))
        }
        assertBodyFollowsOrFails(result, method: "POST", body: "payload")
    }

    func testPUTRedirectedWith308IsSentAgainWithItsBody() throws {
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: try request("PUT", status: 308, body: Data("payload".utf8)), completionHandler: handler))
        }
        assertBodyFollowsOrFails(result, method: "PUT", body: "payload")
    }

    func testAFileUploadRedirectedWith307IsSentAgainWithItsBody() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("upload.txt", contents: Data("file body".utf8))
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(with: try request("PUT", status: 307, body: nil), fromFile: file, completionHandler: handler))
        }
        assertBodyFollowsOrFails(result, method: "PUT", body: "file body")
    }

    func testAMultipartBodyRedirectedWith308IsSentAgainWithItsParts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("part.txt", contents: Data("file part".utf8))
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: try HTTPBin.url("/redirect-to?url=/post&status_code=308").absoluteString, parameters: ["field": "value"]
        ) { form in try form.appendPart(withFileURL: file, name: "file") }
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        if HTTPTransport.underTest == .urlSession {
            guard case .redirectWouldDropBody? = result.error as? SessionError else { return XCTFail("\(String(describing: result.error))") }
        } else {
            XCTAssertNil(result.error)
            XCTAssertEqual(HTTPBin.formValues(result.json ?? [:])["field"], ["value"])
            XCTAssertEqual(HTTPBin.fileContents(result.json ?? [:])["file"], Data("file part".utf8))
        }
    }

    func testStreamedUploadRedirectedWith307Fails() throws {
        let manager = makeManager()
        var streamed = try request("POST", status: 307, body: nil)
        streamed.httpBodyStream = InputStream(data: Data("payload".utf8))
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: streamed, completionHandler: handler))
        }
        guard case .redirectWouldDropBody? = result.error as? SessionError else {
            return XCTFail("expected redirectWouldDropBody, got \(String(describing: result.error))")
        }
    }

    func testBodylessRequestFollows307() throws {
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: try request("GET", status: 307, body: nil), completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(result.json?["method"] as? String, "GET")
    }

    func testPOSTRedirectedWith303BecomesABodylessGET() throws {
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: try request("POST", status: 303, body: Data("payload".utf8)), completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(result.json?["method"] as? String, "GET")
    }

    func testMoreThanSixteenRedirectsFailWithTooManyRedirects() throws {
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: try HTTPBin.url("/redirect/20")), completionHandler: handler))
        }
        XCTAssertEqual((result.error as? URLError)?.code, .httpTooManyRedirects, "\(String(describing: result.error))")
    }
}
