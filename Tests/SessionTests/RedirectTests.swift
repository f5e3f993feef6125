import AFNetworkingTesting
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
    /// An in-process server: `/status/<code>` answers `code` with a `Location` of `/echo`, and
    /// `/echo` the request's method and body (as text) in JSON.
    private func makeRedirectingServer() throws -> TestServer {
        try makeServer { request in
            guard request.path.hasPrefix("/status/"), let status = Int(request.path.dropFirst(8)) else {
                return .jsonObject(["method": request.method, "data": request.text])
            }
            return .status(status, fields: ["Location": "/echo"])
        }
    }

    private func request(_ method: String, status: Int, body: Data?, to server: TestServer) -> URLRequest {
        var request = URLRequest(url: server.url("/status/\(status)"))
        request.httpMethod = method
        request.httpBody = body
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
        let server = try makeRedirectingServer()
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: request("POST", status: 307, body: Data("payload".utf8), to: server), completionHandler: handler))
        }
        assertBodyFollowsOrFails(result, method: "POST", body: "payload")
    }

    func testPUTRedirectedWith308IsSentAgainWithItsBody() throws {
        let server = try makeRedirectingServer()
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: request("PUT", status: 308, body: Data("payload".utf8), to: server), completionHandler: handler))
        }
        assertBodyFollowsOrFails(result, method: "PUT", body: "payload")
    }

    func testAFileUploadRedirectedWith307IsSentAgainWithItsBody() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("upload.txt", contents: Data("file body".utf8))
        let server = try makeRedirectingServer()
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(with: request("PUT", status: 307, body: nil, to: server), fromFile: file, completionHandler: handler))
        }
        assertBodyFollowsOrFails(result, method: "PUT", body: "file body")
    }

    func testAMultipartBodyRedirectedWith308IsSentAgainWithItsParts() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.file("part.txt", contents: Data("file part".utf8))
        let server = try makeRedirectingServer()
        let request = try HTTPRequestSerializer().multipartFormRequest(
            method: "POST", urlString: server.url("/status/308").absoluteString, parameters: ["field": "value"]
        ) { form in try form.appendPart(withFileURL: file, name: "file") }
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: handler))
        }
        if HTTPTransport.underTest == .urlSession {
            guard case .redirectWouldDropBody? = result.error as? SessionError else { return XCTFail("\(String(describing: result.error))") }
        } else {
            XCTAssertNil(result.error)
            XCTAssertEqual(server.requests.map(\.path), ["/status/308", "/echo"])
            let sentAgain = try XCTUnwrap(server.requests.last)
            let parts = MultipartParts.parse(sentAgain.body, contentType: sentAgain.value(forHeader: "Content-Type"))
            XCTAssertEqual(parts.map(\.name), ["field", "file"])
            XCTAssertEqual(parts.map(\.content), [Data("value".utf8), Data("file part".utf8)])
        }
    }

    func testStreamedUploadRedirectedWith307Fails() throws {
        let server = try makeRedirectingServer()
        let manager = makeManager()
        var streamed = request("POST", status: 307, body: nil, to: server)
        streamed.httpBodyStream = InputStream(data: Data("payload".utf8))
        let result = try complete { handler in
            manager.resume(try manager.uploadTask(withStreamedRequest: streamed, completionHandler: handler))
        }
        guard case .redirectWouldDropBody? = result.error as? SessionError else {
            return XCTFail("expected redirectWouldDropBody, got \(String(describing: result.error))")
        }
    }

    func testBodylessRequestFollows307() throws {
        let server = try makeRedirectingServer()
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: request("GET", status: 307, body: nil, to: server), completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(result.json?["method"] as? String, "GET")
    }

    func testPOSTRedirectedWith303BecomesABodylessGET() throws {
        let server = try makeRedirectingServer()
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: request("POST", status: 303, body: Data("payload".utf8), to: server), completionHandler: handler))
        }
        XCTAssertNil(result.error)
        XCTAssertEqual(result.json?["method"] as? String, "GET")
        XCTAssertEqual(result.json?["data"] as? String, "")
    }

    func testMoreThanSixteenRedirectsFailWithTooManyRedirects() throws {
        let server = try makeServer(ServerReply.redirectChain)
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: URLRequest(url: server.url("/redirect/20")), completionHandler: handler))
        }
        XCTAssertEqual((result.error as? URLError)?.code, .httpTooManyRedirects, "\(String(describing: result.error))")
    }
}
