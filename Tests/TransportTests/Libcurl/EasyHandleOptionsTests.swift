import AFSecurity
@testable import AFTransport
import Foundation
import TestSupport
import XCTest

/// The options of a hop's easy handle, built without libcurl: the values libcurl is given, the
/// header lines as it reads them, and the body's length.
final class EasyHandleOptionsTests: XCTestCase {
    /// What a hop's options were, as a recording sink saw them.
    private struct Recorded: CurlOptionSink {
        var values: [CurlOptionValue] = []
        var headerLines: [String] = []
        var uploadLength: Int64 = 0

        mutating func set(_ value: CurlOptionValue) { values.append(value) }
        mutating func appendHeader(_ line: String) { headerLines.append(line) }
    }

    private func options(
        _ url: String = "http://127.0.0.1:8080/items", method: String? = nil, headers: [(name: String, value: String)] = [],
        body: EasyHandleOptions.Body = .none, httpVersion: HTTPVersion = .automatic, proxy: Proxy? = nil
    ) -> Recorded {
        var recorded = Recorded()
        recorded.uploadLength = EasyHandleOptions.apply(EasyHandleOptions.Input(
            url: URL(string: url)!, socketPath: nil, proxy: proxy, clientIdentity: nil, httpVersion: httpVersion, receiveBufferSize: 65536,
            connectMilliseconds: 1500, totalMilliseconds: 0, method: method, headers: headers, body: body), to: &recorded)
        return recorded
    }

    private func long(_ option: Int32, in options: Recorded) -> Int? {
        for case .long(option, let value) in options.values { return value }
        return nil
    }

    private func string(_ option: Int32, in options: Recorded) -> String? {
        for case .string(option, let value) in options.values { return value }
        return nil
    }

    func testPipeWaitIsSetOnlyWhereHTTP2CanBeNegotiated() {
        XCTAssertEqual(long(CurlOption.pipeWait, in: options("https://127.0.0.1/")), 1)
        XCTAssertNil(long(CurlOption.pipeWait, in: options("http://127.0.0.1/")))
        XCTAssertNil(long(CurlOption.pipeWait, in: options("https://127.0.0.1/", httpVersion: .http1_1)))
    }

    func testAPriorKnowledgeCleartextConnectionCarriesOneRequest() {
        XCTAssertEqual(long(CurlOption.forbidReuse, in: options(httpVersion: .http2PriorKnowledge)), 1)
        XCTAssertNil(long(CurlOption.forbidReuse, in: options("https://127.0.0.1/", httpVersion: .http2PriorKnowledge)))
        XCTAssertEqual(long(CurlOption.httpVersion, in: options(httpVersion: .http2PriorKnowledge)), 5)
    }

    func testHeaderLinesSpellAnEmptyValueAsLibcurlReadsItAndEndWithAnEmptyExpect() {
        let built = options(headers: [(name: "Accept", value: "application/json"), (name: "X-Empty", value: "")])
        XCTAssertEqual(built.headerLines, ["Accept: application/json", "X-Empty;", "Expect:"])
    }

    func testAGetSendsNoBodyAndNamesNoMethod() {
        let built = options()
        XCTAssertNil(long(CurlOption.upload, in: built))
        XCTAssertNil(string(CurlOption.customRequest, in: built))
        XCTAssertEqual(built.uploadLength, -1)
    }

    func testAHeadAsksForNoBody() {
        let built = options(method: "HEAD")
        XCTAssertEqual(long(CurlOption.noBody, in: built), 1)
        XCTAssertNil(long(CurlOption.upload, in: built))
        XCTAssertNil(string(CurlOption.customRequest, in: built))
    }

    func testADataBodyIsUploadedWithItsLength() {
        let built = options(method: "PUT", body: .data(count: 5))
        XCTAssertEqual(long(CurlOption.upload, in: built), 1)
        XCTAssertTrue(built.values.contains(.offset(CurlOption.inFileSizeLarge, 5)))
        XCTAssertEqual(string(CurlOption.customRequest, in: built), "PUT")
        XCTAssertEqual(built.uploadLength, 5)
    }

    func testAStreamWithoutALengthIsSentChunked() {
        let built = options(method: "POST", headers: [(name: "Content-Type", value: "text/plain")], body: .stream(declaredLength: nil))
        XCTAssertTrue(built.values.contains(.offset(CurlOption.inFileSizeLarge, -1)))
        XCTAssertEqual(built.headerLines, ["Content-Type: text/plain", "Expect:"])
    }

    func testAPostWithoutBodySendsAnEmptyOneWithoutAType() {
        let built = options(method: "POST")
        XCTAssertTrue(built.values.contains(.offset(CurlOption.inFileSizeLarge, 0)))
        XCTAssertEqual(built.headerLines, ["Expect:"])
    }

    func testAPostBodyWithoutATypeGetsTheFormTypeAsURLSessionGivesIt() {
        let built = options(method: "post", body: .data(count: 3))
        XCTAssertEqual(built.headerLines, ["Content-Type: application/x-www-form-urlencoded", "Expect:"])
        XCTAssertEqual(string(CurlOption.customRequest, in: built), "POST")
    }

    func testEveryHopNamesItsProxyOrNone() {
        XCTAssertEqual(string(CurlOption.proxy, in: options()), "")
        let proxy = Proxy(.http, host: "127.0.0.1", port: 3128, username: "u", password: "p")
        let built = options(proxy: proxy)
        XCTAssertEqual(string(CurlOption.proxy, in: built), proxy.curlURL)
        XCTAssertEqual(string(CurlOption.proxyUsername, in: built), "u")
        XCTAssertEqual(string(CurlOption.proxyPassword, in: built), "p")
        XCTAssertEqual(long(CurlOption.suppressConnectHeaders, in: built), 1)
    }

    func testAnHTTPSProxysAnchorsReplaceTheSystemsTrustDirectoryToo() throws {
        let anchor = try Fixtures.certificate("root-ca")
        let built = options(proxy: Proxy(.https, host: "localhost", port: 8443, anchorCertificates: [anchor]))
        let pem = Proxy(.https, host: "localhost", port: 8443, anchorCertificates: [anchor]).anchorsPEM
        XCTAssertTrue(built.values.contains(.blob(CurlOption.proxyCAInfoBlob, pem)))
        XCTAssertTrue(built.values.contains(.null(CurlOption.proxyCAPath)))
        // Without anchors of its own the proxy is checked against the system's trust, untouched.
        let system = options(proxy: Proxy(.https, host: "localhost", port: 8443))
        XCTAssertFalse(system.values.contains { $0.option == CurlOption.proxyCAPath || $0.option == CurlOption.proxyCAInfoBlob })
    }

    func testOlderLibcurlsGetTheProtocolsAsABitmask() {
        var recorded = Recorded()
        var input = EasyHandleOptions.Input(
            url: URL(string: "https://127.0.0.1/")!, socketPath: nil, proxy: nil, clientIdentity: nil, receiveBufferSize: 65536,
            connectMilliseconds: 0, totalMilliseconds: 0, method: nil, headers: [], body: .none)
        input.protocolNames = false
        _ = EasyHandleOptions.apply(input, to: &recorded)
        XCTAssertEqual(long(CurlOption.protocols, in: recorded), 3)
        XCTAssertEqual(long(CurlOption.redirectProtocols, in: recorded), 3)
        XCTAssertNil(string(CurlOption.protocolsString, in: recorded))
    }

    func testThePolicyReplacesLibcurlsVerificationAndEveryConnectionIsVerified() {
        let built = options("https://127.0.0.1/")
        XCTAssertEqual(long(CurlOption.sslVerifyPeer, in: built), 1)
        XCTAssertEqual(long(CurlOption.sslVerifyHost, in: built), 0)
        XCTAssertEqual(long(CurlOption.sslSessionIDCache, in: built), 0)
        XCTAssertEqual(string(CurlOption.protocolsString, in: built), "http,https")
    }

    func testTheHopsTimeoutsAreGivenInMilliseconds() {
        let built = options()
        XCTAssertEqual(long(CurlOption.connectTimeoutMilliseconds, in: built), 1500)
        XCTAssertEqual(long(CurlOption.timeoutMilliseconds, in: built), 0)
    }
}
