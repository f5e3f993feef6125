@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// libcurl's results as the URLError codes URLSession gives for the same failures.
final class CurlErrorTests: XCTestCase {
    func testEachResultMapsToTheClosestURLErrorCode() {
        let expected: [Int32: URLError.Code] = [
            1: .badServerResponse, 3: .badURL, 5: .cannotFindHost, 6: .cannotFindHost, 7: .cannotConnectToHost,
            8: .badServerResponse, 16: .networkConnectionLost, 18: .networkConnectionLost, 26: .requestBodyStreamExhausted,
            28: .timedOut, 35: .secureConnectionFailed, 42: .cancelled, 47: .httpTooManyRedirects, 52: .networkConnectionLost,
            55: .networkConnectionLost, 56: .networkConnectionLost, 58: .clientCertificateRejected,
            60: .serverCertificateUntrusted, 61: .cannotDecodeContentData, 63: .dataLengthExceedsMaximum,
            77: .secureConnectionFailed, 92: .networkConnectionLost, 95: .cannotParseResponse,
        ]
        for (code, urlErrorCode) in expected {
            XCTAssertEqual(CurlError(code: code, message: "").urlErrorCode, urlErrorCode, "CURLcode \(code)")
        }
        XCTAssertEqual(CurlError(code: 99, message: "").urlErrorCode, .unknown)
    }

    func testTheDescriptionNamesTheCodeAndMessage() {
        XCTAssertEqual("\(CurlError(code: 7, message: "Failed to connect"))", "curl error 7: Failed to connect")
    }

    func testARefusedConnectionIsCannotConnectWithLibcurlsResultUnderneath() async throws {
        // A port that was just free: nothing listens there.
        let port = try XCTUnwrap(UnusedPort.find())
        let manager = URLSessionManager(transport: .libcurl)
        defer { manager.invalidateSession(cancelingTasks: true) }
        do {
            _ = try await manager.data(for: URLRequest(url: URL(string: "http://127.0.0.1:\(port)/")!))
            XCTFail("a refused connection succeeded")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .cannotConnectToHost)
            let curlError = try XCTUnwrap(error.userInfo[NSUnderlyingErrorKey] as? CurlError)
            XCTAssertEqual(curlError.code, 7)
            XCTAssertEqual(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL, URL(string: "http://127.0.0.1:\(port)/"))
        }
    }
}
