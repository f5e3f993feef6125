import AFSecurity
import AFSerialization
import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import TestSupport
import XCTest

/// Requests through real proxies (tinyproxy, scripts/proxy-servers.sh) to the local httpbin and
/// TLS servers: each proxy's log and each origin's access log say who saw which request.
final class ProxyTests: XCTestCase {
    private static let proxyVariables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]

    override func setUp() {
        super.setUp()
        // The environment of the test process is the test's input: start from none, and leave
        // none behind for later tests.
        Self.proxyVariables.forEach { unsetenv($0) }
        addTeardownBlock { Self.proxyVariables.forEach { unsetenv($0) } }
    }

    private func manager(_ setting: ProxySetting? = nil, configuration: URLSessionConfiguration? = nil, pinning: String? = nil) throws -> URLSessionManager {
        let manager = URLSessionManager(configuration: configuration)
        if let setting { manager.proxy = setting }
        let pinned = try pinning.map { [try Fixtures.certificate($0)] } ?? []
        try manager.setSecurityPolicy(SecurityPolicy(
            pinningMode: pinning == nil ? .none : .publicKey, pinnedCertificates: pinned, anchorCertificates: [Fixtures.certificate("root-ca")]))
        addTeardownBlock { manager.invalidateSession(cancelingTasks: true) }
        return manager
    }

    private func proxy(_ name: String, credentials: Bool = false) throws -> (server: ProxyServer, proxy: Proxy) {
        let server = try ProxyServer.named(name)
        return (server, Proxy(.http, host: server.host, port: server.port,
                              username: credentials ? ProxyServer.username : nil, password: credentials ? ProxyServer.password : nil))
    }

    private func get(_ url: URL, with manager: URLSessionManager) async -> Result<HTTPResponse<Data>, any Error> {
        do { return .success(try await manager.data(for: URLRequest(url: url))) } catch { return .failure(error) }
    }

    private func marker() -> String { "probe=\(UUID().uuidString)" }

    private func proxyError(_ result: Result<HTTPResponse<Data>, any Error>, code: URLError.Code, file: StaticString = #filePath, line: UInt = #line) -> ProxyError? {
        guard case .failure(let error) = result, let urlError = error as? URLError else {
            XCTFail("expected a URLError, got \(result)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(urlError.code, code, file: file, line: line)
        return urlError.userInfo[NSUnderlyingErrorKey] as? ProxyError
    }

    // MARK: Explicit proxies

    func testPlainHTTPRequestGoesThroughTheProxy() async throws {
        let (server, proxy) = try proxy("open")
        let probe = marker()
        let url = try HTTPBin.url("/get?\(probe)")
        let response = try await manager(.proxy(proxy)).data(for: URLRequest(url: url))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: "GET \(url.absoluteString) HTTP/1.1"))
    }

    func testBypassedHostIsReachedDirectly() async throws {
        let (server, proxy) = try proxy("open")
        let probe = marker()
        let response = try await manager(.proxy(proxy, bypass: ["localhost", "127.0.0.0/8"])).data(for: URLRequest(url: try HTTPBin.url("/get?\(probe)")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertFalse(server.receivedRequest(containing: probe, within: 0.3))
    }

    func testHTTPSGoesThroughATunnelAndThePinnedPolicyChecksTheOrigin() async throws {
        let (server, proxy) = try proxy("open")
        let origin = try TLSServer.named("localhost")
        let probe = marker()
        let response = try await manager(.proxy(proxy), pinning: "localhost").data(for: URLRequest(url: origin.url("/get?\(probe)")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: "CONNECT localhost:\(origin.baseURL.port ?? 0) HTTP/1.1"))
        XCTAssertTrue(origin.receivedRequest(containing: probe))
    }

    func testWrongPinThroughATunnelFailsBeforeTheOriginSeesARequest() async throws {
        let (server, proxy) = try proxy("open")
        let origin = try TLSServer.named("localhost")
        let probe = marker()
        let result = await get(origin.url("/get?\(probe)"), with: try manager(.proxy(proxy), pinning: "wrong-host"))
        guard case .failure(let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual((error as? URLError)?.code.rawValue, -1202)
        XCTAssertTrue(server.receivedRequest(containing: "CONNECT localhost:\(origin.baseURL.port ?? 0)"), "the tunnel was not through the proxy")
        XCTAssertFalse(origin.receivedRequest(containing: probe, within: 0.3), "the origin received the request")
    }

    func testProxyAskingForCredentialsFailsWithAProxyError() async throws {
        let (_, proxy) = try proxy("guarded")
        let result = await get(try HTTPBin.url("/get"), with: try manager(.proxy(proxy)))
        XCTAssertEqual(proxyError(result, code: .userAuthenticationRequired), .authenticationRequired(proxy: proxy.address))
    }

    func testProxyCredentialsReachTheProxyAndNeverTheOrigin() async throws {
        let (server, proxy) = try proxy("guarded", credentials: true)
        let probe = marker()
        let response = try await manager(.proxy(proxy)).data(for: URLRequest(url: try HTTPBin.url("/headers?\(probe)")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: probe))
        let headers = try XCTUnwrap((try JSONSerialization.jsonObject(with: response.value) as? [String: Any])?["headers"] as? [String: String])
        XCTAssertFalse(headers.keys.contains { $0.lowercased() == "proxy-authorization" }, "\(headers)")
        XCTAssertFalse(headers.values.contains { $0.contains(ProxyServer.password) || $0.contains("YWZuLXByb3h5") }, "\(headers)")
    }

    func testRefusedTunnelFailsWithTheProxysStatus() async throws {
        let (_, proxy) = try proxy("guarded", credentials: true)
        let result = await get(try TLSServer.named("localhost").url("/get"), with: try manager(.proxy(proxy)))
        XCTAssertEqual(proxyError(result, code: .cannotConnectToHost), .tunnelRefused(proxy: proxy.address, status: 403))
    }

    func testTunnelWithoutCredentialsFailsWithAProxyError() async throws {
        let (_, proxy) = try proxy("guarded")
        let result = await get(try TLSServer.named("localhost").url("/get"), with: try manager(.proxy(proxy)))
        XCTAssertEqual(proxyError(result, code: .userAuthenticationRequired), .authenticationRequired(proxy: proxy.address))
    }

    func testUnreachableProxyFailsWithAProxyError() async throws {
        let port = try XCTUnwrap(UnusedPort.find())
        let proxy = Proxy(.http, host: "127.0.0.1", port: port)
        let result = await get(try HTTPBin.url("/get"), with: try manager(.proxy(proxy)))
        XCTAssertEqual(proxyError(result, code: .cannotConnectToHost), .unreachable(proxy: "127.0.0.1:\(port)"))
    }

    func testSOCKS5ProxyCarriesTheRequestWithItsCredentials() async throws {
        var proxy = try XCTUnwrap(Proxy(url: try ProxyServer.socksURL()))
        XCTAssertEqual(proxy.kind, .socks5)
        proxy.username = ProxyServer.username
        proxy.password = ProxyServer.password
        let url = try HTTPBin.url("/get")
        let direct = try await manager().data(for: URLRequest(url: url))
        let viaSOCKS = try await manager(.proxy(proxy)).data(for: URLRequest(url: url))
        // httpbin names the address the connection came from: microsocks connects from 127.0.0.2.
        XCTAssertEqual((try JSONSerialization.jsonObject(with: direct.value) as? [String: Any])?["origin"] as? String, "127.0.0.1")
        XCTAssertEqual((try JSONSerialization.jsonObject(with: viaSOCKS.value) as? [String: Any])?["origin"] as? String, "127.0.0.2")
    }

    func testSOCKS5ProxyRefusingTheCredentialsFailsWithAProxyError() async throws {
        let proxy = try XCTUnwrap(Proxy(url: try ProxyServer.socksURL()))
        let result = await get(try HTTPBin.url("/get"), with: try manager(.proxy(proxy)))
        guard case .handshakeFailed(let address, let reason)? = proxyError(result, code: .cannotConnectToHost) else {
            return XCTFail("expected a refused handshake, got \(result)")
        }
        XCTAssertEqual(address, proxy.address)
        XCTAssertTrue(reason.contains("authentication"), reason)
    }

    private func httpsProxy(anchors: [String]) throws -> Proxy {
        var proxy = try XCTUnwrap(Proxy(url: try ProxyServer.tlsURL()))
        XCTAssertEqual(proxy.kind, .https)
        proxy.anchorCertificates = try anchors.map(Fixtures.certificate)
        return proxy
    }

    func testHTTPSProxyCarriesPlainAndTunnelledRequestsWithThePolicyOnTheOrigin() async throws {
        let (server, _) = try proxy("open")
        let manager = try manager(.proxy(try httpsProxy(anchors: ["root-ca"])), pinning: "localhost")
        let plain = marker()
        let plainURL = try HTTPBin.url("/get?\(plain)")
        let plainResponse = try await manager.data(for: URLRequest(url: plainURL))
        XCTAssertEqual(plainResponse.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: "GET \(plainURL.absoluteString) HTTP/1.1"))
        let origin = try TLSServer.named("localhost")
        let tunnelled = marker()
        let tunnelledResponse = try await manager.data(for: URLRequest(url: origin.url("/get?\(tunnelled)")))
        XCTAssertEqual(tunnelledResponse.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: "CONNECT localhost:\(origin.baseURL.port ?? 0)"))
        XCTAssertTrue(origin.receivedRequest(containing: tunnelled))
    }

    func testWrongPinThroughAnHTTPSProxyFailsBeforeTheOriginSeesARequest() async throws {
        let origin = try TLSServer.named("localhost")
        let probe = marker()
        let result = await get(origin.url("/get?\(probe)"), with: try manager(.proxy(try httpsProxy(anchors: ["root-ca"])), pinning: "wrong-host"))
        guard case .failure(let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual((error as? URLError)?.code.rawValue, -1202, "\(error)")
        XCTAssertFalse(origin.receivedRequest(containing: probe, within: 0.3), "the origin received the request")
    }

    func testAnHTTPSProxyWhoseCertificateIsNotTrustedFailsWithAProxyError() async throws {
        let proxy = try httpsProxy(anchors: ["self-signed"])
        let probe = marker()
        let result = await get(try HTTPBin.url("/get?\(probe)"), with: try manager(.proxy(proxy)))
        guard case .handshakeFailed(let address, _)? = proxyError(result, code: .cannotConnectToHost) else {
            return XCTFail("expected the proxy's handshake to fail, got \(result)")
        }
        XCTAssertEqual(address, proxy.address)
        XCTAssertFalse(try ProxyServer.named("open").receivedRequest(containing: probe, within: 0.3))
    }

    // MARK: The environment and the configuration

    func testHTTPProxyFromTheEnvironmentIsUsedByDefault() async throws {
        let (server, _) = try proxy("open")
        setenv("http_proxy", server.url(), 1)
        let probe = marker()
        let response = try await manager().data(for: URLRequest(url: try HTTPBin.url("/get?\(probe)")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: probe))
    }

    func testHTTPSProxyFromTheEnvironmentTunnels() async throws {
        let (server, _) = try proxy("open")
        setenv("HTTPS_PROXY", server.url(), 1)
        let origin = try TLSServer.named("localhost")
        let response = try await manager(pinning: "localhost").data(for: URLRequest(url: origin.url("/get")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: "CONNECT localhost:\(origin.baseURL.port ?? 0)"))
    }

    func testCredentialsInTheEnvironmentsProxyURLAreSentToTheProxy() async throws {
        let (server, _) = try proxy("guarded")
        setenv("HTTP_PROXY", server.url(username: ProxyServer.username, password: ProxyServer.password), 1)
        let probe = marker()
        let response = try await manager().data(for: URLRequest(url: try HTTPBin.url("/get?\(probe)")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: probe))
    }

    func testNoProxyFromTheEnvironmentBypassesTheProxy() async throws {
        let (server, _) = try proxy("open")
        setenv("http_proxy", server.url(), 1)
        setenv("NO_PROXY", "example.com, 127.0.0.1", 1)
        let probe = marker()
        let response = try await manager().data(for: URLRequest(url: try HTTPBin.url("/get?\(probe)")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertFalse(server.receivedRequest(containing: probe, within: 0.3))
    }

    func testNoneIgnoresTheEnvironment() async throws {
        let port = try XCTUnwrap(UnusedPort.find())
        setenv("http_proxy", "http://127.0.0.1:\(port)", 1)
        let response = try await manager(ProxySetting.none).data(for: URLRequest(url: try HTTPBin.url("/get")))
        XCTAssertEqual(response.statusCode, 200)
    }

    func testConnectionProxyDictionaryOverridesTheEnvironment() async throws {
        let (server, _) = try proxy("open")
        let port = try XCTUnwrap(UnusedPort.find())
        setenv("http_proxy", "http://127.0.0.1:\(port)", 1)
        let configuration = URLSessionConfiguration.default
        configuration.connectionProxyDictionary = ["HTTPEnable": 1, "HTTPProxy": server.host, "HTTPPort": server.port]
        let probe = marker()
        let response = try await manager(configuration: configuration).data(for: URLRequest(url: try HTTPBin.url("/get?\(probe)")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(server.receivedRequest(containing: probe))
    }
}
