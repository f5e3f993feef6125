import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `HTTPURLResponse` for serializer unit tests.
public func httpResponse(status: Int = 200, contentType: String? = "application/json", url: String = "http://example.com/r") -> HTTPURLResponse {
    var headers: [String: String] = [:]
    headers["Content-Type"] = contentType
    return HTTPURLResponse(url: URL(string: url)!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
}
