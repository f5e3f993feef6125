import AFSecurity
import AFSession
@testable import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What a refused libcurl option fails the task with: the option by name and the libcurl it
/// needs; tuning alone is passed over.
final class CurlOptionRefusalTests: XCTestCase {
    private let unknownOption: Int32 = 48
    private let notBuiltIn: Int32 = 4

    private func refusal(_ value: CurlOptionValue, code: Int32) -> TransportError? {
        CurlOptionRefusal.error(setting: value, code: code, libcurl: "7.68.0")
    }

    func testAnAcceptedOptionIsNoError() {
        XCTAssertNil(refusal(.long(CurlOption.sslVerifyPeer, 1), code: 0))
        XCTAssertNil(CurlOptionRefusal.error(setting: CurlOption.sslContextFunction, code: 0, libcurl: "7.88.1"))
    }

    func testAClientIdentityBefore7_71IsRefusedNamingTheOptionAndTheVersion() {
        XCTAssertEqual(refusal(.blob(CurlOption.sslCertificateBlob, Data("pem".utf8)), code: unknownOption),
                       .optionRefused(option: "CURLOPT_SSLCERT_BLOB", requires: "libcurl 7.71.0 built with OpenSSL (the client identity)",
                                      libcurl: "7.68.0", code: 48))
        XCTAssertEqual(refusal(.blob(CurlOption.sslKeyBlob, Data("pem".utf8)), code: unknownOption),
                       .optionRefused(option: "CURLOPT_SSLKEY_BLOB", requires: "libcurl 7.71.0 built with OpenSSL (the client identity)",
                                      libcurl: "7.68.0", code: 48))
    }

    func testProxyAnchorsBefore7_77AreRefused() {
        XCTAssertEqual(refusal(.blob(CurlOption.proxyCAInfoBlob, Data("pem".utf8)), code: unknownOption),
                       .optionRefused(option: "CURLOPT_PROXY_CAINFO_BLOB", requires: "libcurl 7.77.0 built with OpenSSL (the proxy's anchors)",
                                      libcurl: "7.68.0", code: 48))
    }

    func testTrailersBefore7_64AreRefused() {
        XCTAssertEqual(CurlOptionRefusal.error(setting: CurlOption.trailerFunction, code: unknownOption, libcurl: "7.62.0"),
                       .optionRefused(option: "CURLOPT_TRAILERFUNCTION", requires: "libcurl 7.64.0", libcurl: "7.62.0", code: 48))
    }

    func testAUnixSocketBefore7_40IsRefused() {
        XCTAssertEqual(refusal(.string(CurlOption.unixSocketPath, "/run/docker.sock"), code: unknownOption),
                       .optionRefused(option: "CURLOPT_UNIX_SOCKET_PATH", requires: "libcurl 7.40.0", libcurl: "7.68.0", code: 48))
    }

    func testTheTLSHookOnAnotherBackendIsRefused() {
        let error = CurlOptionRefusal.error(setting: CurlOption.sslContextFunction, code: notBuiltIn, libcurl: "7.88.1")
        XCTAssertEqual(error, .optionRefused(option: "CURLOPT_SSL_CTX_FUNCTION",
                                             requires: "libcurl built with OpenSSL (the TLS hook of the security policy)", libcurl: "7.88.1", code: 4))
        XCTAssertEqual(error?.description,
                       "libcurl 7.88.1 refused CURLOPT_SSL_CTX_FUNCTION (CURLcode 4): it needs libcurl built with OpenSSL (the TLS hook of the security policy)")
    }

    func testAnHTTPVersionPinWithoutHTTP2IsRefused() {
        // libcurl without nghttp2 answers CURLE_UNSUPPORTED_PROTOCOL (1).
        XCTAssertEqual(refusal(.long(CurlOption.httpVersion, HTTPVersion.http2PriorKnowledge.curlValue), code: 1),
                       .optionRefused(option: "CURLOPT_HTTP_VERSION", requires: "libcurl built with HTTP/2 (nghttp2)", libcurl: "7.68.0", code: 1))
    }

    func testTheAutomaticHTTPVersionWithoutHTTP2IsPassedOver() {
        XCTAssertNil(refusal(.long(CurlOption.httpVersion, HTTPVersion.automatic.curlValue), code: 1))
    }

    func testTuningIsPassedOver() {
        XCTAssertNil(refusal(.long(CurlOption.bufferSize, 65536), code: 43))
        XCTAssertNil(refusal(.long(CurlOption.uploadBufferSize, 65536), code: unknownOption))
        XCTAssertNil(refusal(.long(CurlOption.pipeWait, 1), code: unknownOption))
    }

    func testARefusedValueIsNamedWithoutAVersion() {
        // CURLE_BAD_FUNCTION_ARGUMENT (43): a string over libcurl's 8 MB limit.
        XCTAssertEqual(refusal(.string(CurlOption.url, "http://example.com/"), code: 43),
                       .optionRefused(option: "CURLOPT_URL", requires: "a value libcurl accepts", libcurl: "7.68.0", code: 43))
    }

    func testEveryOptionTheTransportSetsHasANameAndARequirement() {
        let options: [Int32] = [
            CurlOption.writeData, CurlOption.url, CurlOption.readData, CurlOption.errorBuffer, CurlOption.writeFunction, CurlOption.readFunction,
            CurlOption.seekFunction, CurlOption.seekData, CurlOption.httpHeader, CurlOption.headerData, CurlOption.trailerFunction,
            CurlOption.trailerData, CurlOption.customRequest, CurlOption.noProgress, CurlOption.noBody, CurlOption.upload,
            CurlOption.sslVerifyPeer, CurlOption.headerFunction, CurlOption.sslVerifyHost, CurlOption.bufferSize, CurlOption.noSignal,
            CurlOption.acceptEncoding, CurlOption.sslContextFunction, CurlOption.sslContextData, CurlOption.inFileSizeLarge,
            CurlOption.sslSessionIDCache, CurlOption.timeoutMilliseconds, CurlOption.connectTimeoutMilliseconds, CurlOption.closeSocketFunction,
            CurlOption.closeSocketData, CurlOption.transferInfoData, CurlOption.transferInfoFunction, CurlOption.uploadBufferSize,
            CurlOption.protocols, CurlOption.redirectProtocols, CurlOption.protocolsString, CurlOption.redirectProtocolsString,
            CurlOption.unixSocketPath, CurlOption.httpVersion, CurlOption.pipeWait, CurlOption.forbidReuse, CurlOption.proxy,
            CurlOption.proxyUsername, CurlOption.proxyPassword, CurlOption.suppressConnectHeaders, CurlOption.proxyCAInfoBlob, CurlOption.proxyCAPath,
            CurlOption.sslCertificateBlob, CurlOption.sslKeyBlob,
        ]
        XCTAssertEqual(Set(options), Set(CurlOptionRefusal.catalog.keys))
        XCTAssertEqual(options.count, CurlOptionRefusal.catalog.count, "an option listed twice")
    }

    func testAnOptionLibcurlRefusesFailsTheTaskWithoutSendingIt() async throws {
        // Debian 12's libcurl refuses a string over 8,000,000 bytes (CURL_MAX_INPUT_LENGTH) with
        // CURLE_BAD_FUNCTION_ARGUMENT: the URL is never set, and the task must not go on without it.
        let manager = URLSessionManager(transport: .libcurl)
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        // A policy that needs the transport: on a variant where it cannot run, nothing is sent either.
        try manager.setSecurityPolicy(SecurityPolicy(allowInvalidCertificates: true))
        let url = URL(string: "http://127.0.0.1:9/?" + String(repeating: "a", count: 8_000_001))!
        do {
            _ = try await manager.data(for: URLRequest(url: url))
            XCTFail("the task succeeded")
        } catch let error as TransportError {
            XCTAssertEqual(error, .optionRefused(option: "CURLOPT_URL", requires: "a value libcurl accepts", libcurl: CurlTransport.libcurlVersion, code: 43))
        } catch SessionError.securityPolicyUnavailable(let reason) {
            XCTAssertEqual(reason, CurlTransport.unavailable?.description)
        }
    }
}
