import AFSerialization
import Foundation
import TestSupport
import XCTest

final class RequestSerializationErrorTests: XCTestCase {
    func testEveryCaseBridgesToTheRequestDomainWithAFNetworkingsCode() {
        let url = URL(fileURLWithPath: "/tmp/x")
        let cases: [(RequestSerializationError, Int)] = [
            (.invalidURL("x"), -1000), (.invalidHeader(name: "a", value: "b"), -1000), (.invalidMultipartField("f"), -1000),
            (.invalidJSONParameters, -1016), (.invalidPropertyListParameters(reason: "r"), -1016), (.invalidQueryParameters, -1016),
            (.encodingFailed(reason: "r"), -1016), (.multipartNotAllowed(method: "GET"), -1000), (.notAFileURL(url), -1000),
            (.fileNotReachable(url), -1000), (.bodySourceEndedEarly(expected: 2, received: 1), -1000),
            (.bodySourceFailed(reason: "r"), -1000), (.missingBodyStream, -1000), (.cannotWriteBody(url, reason: "r"), -1000),
        ]
        for (error, code) in cases {
            let nsError = error as NSError
            XCTAssertEqual(nsError.domain, "com.alamofire.error.serialization.request", "\(error)")
            XCTAssertEqual(nsError.code, code, "\(error)")
            XCTAssertFalse(nsError.localizedDescription.isEmpty, "\(error)")
            XCTAssertEqual(nsError.localizedFailureReason, error.failureReason, "\(error)")
        }
    }

    func testFileErrorsCarryTheFailingURL() {
        let url = URL(fileURLWithPath: "/tmp/missing")
        XCTAssertEqual((RequestSerializationError.fileNotReachable(url) as NSError).userInfo[NSURLErrorFailingURLErrorKey] as? URL, url)
    }

    func testHeaderErrorDoesNotEchoTheValue() {
        let error = RequestSerializationError.invalidHeader(name: "Authorization", value: "Bearer secret\r\n")
        XCTAssertFalse((error as NSError).localizedDescription.contains("secret"))
    }
}
