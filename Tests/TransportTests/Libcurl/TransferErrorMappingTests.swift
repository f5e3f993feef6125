@testable import AFTransport
import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The error a failed hop ends with, from what the hop learnt, without libcurl: the order of
/// precedence and each kind's code, description and underlying error.
final class TransferErrorMappingTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/items")!

    private func mapping(_ code: Int32, _ message: String = "message") -> TransferErrorMapping {
        TransferErrorMapping(url: url, curlCode: code, message: message)
    }

    func testARejectedChainWinsOverEveryOtherCause() {
        var failed = mapping(35)
        failed.evaluation = .rejected(.unknownRoot(reason: "self-signed"))
        failed.proxyFailure = .unreachable(proxy: "proxy:3128")
        failed.framingFault = .repeatedChunked
        let error = failed.error
        XCTAssertEqual(error.code, .serverCertificateHasUnknownRoot)
        failed.pins = true
        XCTAssertEqual(failed.error.code, .serverCertificateUntrusted)
        XCTAssertNotNil(error.userInfo[TrustEvaluation.errorUserInfoKey] as? TrustEvaluation)
        XCTAssertEqual(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL, url)
        XCTAssertTrue(error.localizedDescription.hasPrefix("The certificate of api.example.com was rejected"))
    }

    // The README's one rule for a rejected server: unknown root and bad dates keep their own
    // codes only where nothing is pinned; every other rejection is -1202.
    func testEachTrustFailureMapsToTheCodeTheREADMEStates() {
        let failures: [(TrustFailure, unpinned: URLError.Code)] = [
            (.unknownRoot(reason: "self-signed"), .serverCertificateHasUnknownRoot),
            (.certificateDateInvalid(reason: "expired"), .serverCertificateHasBadDate),
            (.domainMismatch(domain: "api.example.com"), .serverCertificateUntrusted),
            (.invalidChain(reason: "bad signature"), .serverCertificateUntrusted),
            (.notForServerAuthentication(reason: "purpose"), .serverCertificateUntrusted),
            (.noCertificates, .serverCertificateUntrusted),
            (.domainValidationNeedsPinning, .serverCertificateUntrusted),
            (.noPinnedCertificate, .serverCertificateUntrusted),
            (.noPinnedPublicKey, .serverCertificateUntrusted),
            (.verifierUnavailable(reason: "no OpenSSL"), .serverCertificateUntrusted),
        ]
        for (failure, unpinned) in failures {
            var failed = mapping(60)
            failed.evaluation = .rejected(failure)
            XCTAssertEqual(failed.error.code, unpinned, "\(failure)")
            failed.pins = true
            XCTAssertEqual(failed.error.code, .serverCertificateUntrusted, "\(failure), pinned")
        }
    }

    func testAResponseOnAConnectionThePolicyNeverTrustedIsUntrusted() {
        var failed = mapping(CurlCode.writeError)
        failed.untrustedConnection = true
        failed.proxyFailure = .unreachable(proxy: "proxy:3128")
        XCTAssertEqual(failed.error.code, .serverCertificateUntrusted)
        XCTAssertEqual(failed.error.localizedDescription,
                       "No evaluation of the security policy trusted the connection to api.example.com: its response was refused")
        XCTAssertEqual(failed.error.userInfo[NSURLErrorFailingURLErrorKey] as? URL, url)
    }

    func testAProxysFailureIsNamed() {
        var failed = mapping(7)
        failed.proxyFailure = .tunnelRefused(proxy: "proxy:3128", status: 403)
        XCTAssertEqual(failed.error.code, .cannotConnectToHost)
        XCTAssertEqual(failed.error.userInfo[NSUnderlyingErrorKey] as? ProxyError, .tunnelRefused(proxy: "proxy:3128", status: 403))
    }

    func testAFramingFaultIsABadServerResponseNamingIt() {
        var failed = mapping(23)
        failed.framingFault = .multipleLocations
        XCTAssertEqual(failed.error.code, .badServerResponse)
        XCTAssertEqual(failed.error.userInfo[NSUnderlyingErrorKey] as? ResponseFramingError, .multipleLocations)
    }

    func testOutOfMemoryInsideAHeadIsAHeaderLineTooLong() {
        var failed = mapping(CurlCode.outOfMemory)
        failed.receivedResponseBytes = true
        XCTAssertEqual(failed.error.userInfo[NSUnderlyingErrorKey] as? ResponseFramingError, .headerLineTooLong)
        failed.receivedResponse = true
        XCTAssertEqual(failed.error.userInfo[NSUnderlyingErrorKey] as? CurlError, CurlError(code: 27, message: "message"))
    }

    func testTooLargeInsideAHeadIsAHeaderLineTooLongAsLibcurl8ReportsIt() {
        var failed = mapping(CurlCode.tooLarge)
        failed.receivedResponseBytes = true
        XCTAssertEqual(failed.error.code, .badServerResponse)
        XCTAssertEqual(failed.error.userInfo[NSUnderlyingErrorKey] as? ResponseFramingError, .headerLineTooLong)
    }

    func testALibcurlTimeoutIsNamedByItsKind() {
        var failed = mapping(CurlCode.operationTimedOut)
        failed.timeout = (.connect, TransferTimeouts(connect: 2, idle: 60, total: nil))
        XCTAssertEqual(failed.error.code, .timedOut)
        XCTAssertEqual(failed.error.userInfo[TimeoutKind.errorUserInfoKey] as? String, "connect")
    }

    func testAServerAskingForACertificateTheClientLacksIsClientCertificateRequired() {
        var failed = mapping(56, "OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0")
        XCTAssertEqual(failed.error.code, .clientCertificateRequired)
        failed.presentedIdentity = true
        XCTAssertEqual(failed.error.code, .clientCertificateRejected)
    }

    func testAnyOtherResultKeepsLibcurlsErrorUnderneath() {
        let error = mapping(7, "Failed to connect").error
        XCTAssertEqual(error.code, .cannotConnectToHost)
        XCTAssertEqual(error.localizedDescription, "Failed to connect")
        XCTAssertEqual(error.userInfo[NSUnderlyingErrorKey] as? CurlError, CurlError(code: 7, message: "Failed to connect"))
    }

    func testAConnectionClosedInTheHeadIsANetworkConnectionLost() {
        let error = TransferErrorMapping.connectionClosedInHead(url: url)
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertEqual(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL, url)
    }
}
