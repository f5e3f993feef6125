@testable import AFSession
@testable import AFTransport
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
            77: .secureConnectionFailed, 92: .networkConnectionLost, 95: .cannotParseResponse, 97: .cannotConnectToHost,
        ]
        for (code, urlErrorCode) in expected {
            XCTAssertEqual(CurlError(code: code, message: "").urlErrorCode, urlErrorCode, "CURLcode \(code)")
        }
        XCTAssertEqual(CurlError(code: 99, message: "").urlErrorCode, .unknown)
    }

    func testTheAlertAServerSentIsReadFromOpenSSLsCodeInTheMessage() {
        let required = "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0"
        XCTAssertEqual(CurlError(code: 56, message: required).receivedTLSAlert, 116)
        XCTAssertEqual(CurlError(code: 56, message: "OpenSSL SSL_read: error:0A000418:SSL routines::tlsv1 alert unknown ca").receivedTLSAlert, 48)
        XCTAssertEqual(CurlError(code: 35, message: "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure").receivedTLSAlert, 40)
        // A local failure (wrong version number: reason 267) and a system error are not alerts.
        XCTAssertNil(CurlError(code: 35, message: "OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number").receivedTLSAlert)
        XCTAssertNil(CurlError(code: 56, message: "Recv failure: Connection reset by peer").receivedTLSAlert)
    }

    func testTheAlertIsReadFromOpenSSL111sCodeToo() {
        // Bullseye's libcurl 7.74 on OpenSSL 1.1.1w: library 20 from bit 24, function 0x094.
        let unknownCA = "OpenSSL SSL_read: error:14094418:SSL routines:ssl3_read_bytes:tlsv1 alert unknown ca, errno 0"
        XCTAssertEqual(CurlError(code: 56, message: unknownCA).receivedTLSAlert, 48)
        let required = "OpenSSL SSL_read: error:1409445C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required, errno 0"
        XCTAssertEqual(CurlError(code: 56, message: required).receivedTLSAlert, 116)
        // A local failure of 1.1.1 (wrong version number: reason 267) is no alert.
        XCTAssertNil(CurlError(code: 35, message: "error:1408F10B:SSL routines:ssl3_get_record:wrong version number").receivedTLSAlert)
    }

    func testTLSFailuresMapToTheClientCertificateCodes() {
        let required = CurlError(code: 56, message: "error:0A00045C:SSL routines::tlsv13 alert certificate required")
        XCTAssertEqual(required.urlErrorCode(presentedIdentity: false, certificateRequested: true), .clientCertificateRequired)
        XCTAssertEqual(required.urlErrorCode(presentedIdentity: true, certificateRequested: false), .clientCertificateRejected)
        let unknownCA = CurlError(code: 56, message: "error:0A000418:SSL routines::tlsv1 alert unknown ca")
        XCTAssertEqual(unknownCA.urlErrorCode(presentedIdentity: true, certificateRequested: false), .clientCertificateRejected)
        // TLS 1.2 servers answer a missing certificate with handshake_failure: only the request
        // the server made tells it apart from other handshake failures.
        let handshake = CurlError(code: 35, message: "error:0A000410:SSL routines::sslv3 alert handshake failure")
        XCTAssertEqual(handshake.urlErrorCode(presentedIdentity: false, certificateRequested: true), .clientCertificateRequired)
        XCTAssertEqual(handshake.urlErrorCode(presentedIdentity: false, certificateRequested: false), .secureConnectionFailed)
        // A connection lost after a handshake in which a certificate was optional stays lost.
        let reset = CurlError(code: 56, message: "Recv failure: Connection reset by peer")
        XCTAssertEqual(reset.urlErrorCode(presentedIdentity: false, certificateRequested: true), .networkConnectionLost)
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
