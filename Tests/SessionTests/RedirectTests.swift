import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// URLSession on Linux re-sends a 307/308-redirected request with an empty body.
final class RedirectTests: XCTestCase {
    private func request(_ method: String, status: Int, body: Data?) throws -> URLRequest {
        var request = URLRequest(url: try HTTPBin.url("/redirect-to?url=/anything&status_code=\(status)"))
        request.httpMethod = method
        request.httpBody = body
        return request
    }

    func testPOSTRedirectedWith307FailsInsteadOfSendingAnEmptyBody() throws {
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: try request("POST", status: 307, body: Data("payload".utf8)), completionHandler: handler))
        }
        guard case .redirectWouldDropBody(let response)? = result.error as? SessionError else {
            return XCTFail("expected redirectWouldDropBody, got \(String(describing: result.error))")
        }
        XCTAssertEqual(response.statusCode, 307)
        XCTAssertEqual(result.status, 307)
    }

    func testPUTRedirectedWith308FailsInsteadOfSendingAnEmptyBody() throws {
        let manager = makeManager()
        let result = try complete { handler in
            manager.resume(try manager.dataTask(with: try request("PUT", status: 308, body: Data("payload".utf8)), completionHandler: handler))
        }
        guard case .redirectWouldDropBody? = result.error as? SessionError else {
            return XCTFail("expected redirectWouldDropBody, got \(String(describing: result.error))")
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
