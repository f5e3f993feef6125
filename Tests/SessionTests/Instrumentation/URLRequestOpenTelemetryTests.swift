import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// `URLRequest.openTelemetryMethod`, without a server.
final class URLRequestOpenTelemetryTests: XCTestCase {
    private func method(_ method: String?) -> String {
        var request = URLRequest(url: URL(string: "https://api.example.com")!)
        request.httpMethod = method
        return request.openTelemetryMethod
    }

    func testHTTPsMethodsAreThemselves() {
        XCTAssertEqual(["GET", "POST", "PATCH", "QUERY", "CONNECT"].map(method), ["GET", "POST", "PATCH", "QUERY", "CONNECT"])
    }

    func testAnyOtherMethodIsOther() {
        XCTAssertEqual(["PURGE", "PROPFIND"].map(method), ["_OTHER", "_OTHER"])
    }
}
