@testable import AFSession
@testable import AFTransport
import Foundation
import XCTest

/// Which proxy a request takes, from the setting, the configuration and the environment.
final class ProxyRoutesTests: XCTestCase {
    private let http = URL(string: "http://api.example.com/v1")!
    private let https = URL(string: "https://api.example.com/v1")!

    private func routes(_ environment: [String: String], dictionary: [AnyHashable: Any]? = nil) -> ProxyRoutes {
        ProxyRoutes.resolve(.automatic, dictionary: dictionary, environment: environment)
    }

    func testEnvironmentVariablesChooseAProxyPerScheme() {
        let routes = routes(["http_proxy": "http://plain:3128", "HTTPS_PROXY": "tunnel:8080"])
        XCTAssertEqual(routes.proxy(for: http), Proxy(.http, host: "plain", port: 3128))
        XCTAssertEqual(routes.proxy(for: https), Proxy(.http, host: "tunnel", port: 8080))
    }

    func testLowerCaseWinsAndAllProxyFillsIn() {
        let routes = routes(["http_proxy": "lower:1", "HTTP_PROXY": "upper:2", "ALL_PROXY": "socks5h://all:1080"])
        XCTAssertEqual(routes.proxy(for: http)?.host, "lower")
        XCTAssertEqual(routes.proxy(for: https), Proxy(.socks5, host: "all", port: 1080))
    }

    func testUpperCaseHTTPProxyIsIgnoredInACGIProgram() {
        XCTAssertEqual(routes(["HTTP_PROXY": "upper:2"]).proxy(for: http)?.host, "upper")
        XCTAssertNil(routes(["HTTP_PROXY": "attacker:2", "REQUEST_METHOD": "GET"]).proxy(for: http))
    }

    func testCredentialsInTheURLArePercentDecoded() {
        let proxy = Proxy(url: "http://user%40corp:p%3Ass@proxy:3128")
        XCTAssertEqual(proxy?.username, "user@corp")
        XCTAssertEqual(proxy?.password, "p:ss")
        XCTAssertFalse(proxy?.description.contains("p:ss") ?? true)
        XCTAssertEqual(proxy?.curlURL, "http://proxy:3128")
    }

    func testHTTPSProxiesDefaultToPort443() {
        XCTAssertEqual(Proxy(url: "https://proxy"), Proxy(.https, host: "proxy", port: 443))
        XCTAssertEqual(Proxy(url: "https://proxy")?.curlURL, "https://proxy:443")
    }

    func testUnsupportedProxySchemesAreIgnored() {
        XCTAssertNil(Proxy(url: "ftp://proxy"))
        XCTAssertNil(Proxy(url: ""))
    }

    func testNoProxyEntriesMatchHostsSuffixesAddressesAndRanges() {
        let cases: [(String, String, Bool)] = [
            ("example.com", "example.com", true), ("example.com", "api.example.com", true), (".example.com", "api.example.com", true),
            ("example.com", "badexample.com", false), ("*", "anything", true), ("127.0.0.1", "127.0.0.1", true),
            ("10.0.0.0/8", "10.20.30.40", true), ("10.0.0.0/8", "11.0.0.1", false), ("192.168.1.0/24", "192.168.1.77", true),
            ("::1", "::1", true), ("fd00::/8", "fd12::1", true), ("fd00::/8", "fe80::1", false), ("10.0.0.0/8", "example.com", false),
            ("EXAMPLE.com", "api.example.com", true),
        ]
        for (entry, host, expected) in cases {
            XCTAssertEqual(ProxyRoutes.entry(entry, matches: host), expected, "\(entry) vs \(host)")
        }
    }

    func testBypassedHostsGoDirect() {
        let routes = routes(["http_proxy": "proxy:3128", "no_proxy": "localhost, .example.com"])
        XCTAssertNil(routes.proxy(for: http))
        XCTAssertNotNil(routes.proxy(for: URL(string: "http://example.org/")!))
    }

    func testConnectionProxyDictionaryOverridesTheEnvironment() {
        let dictionary: [AnyHashable: Any] = ["HTTPEnable": 1, "HTTPProxy": "dict", "HTTPPort": 8000, "HTTPSEnable": true,
                                              "HTTPSProxy": "dicts", "HTTPSPort": "8443", "ExceptionsList": ["internal"]]
        let routes = routes(["http_proxy": "env:1"], dictionary: dictionary)
        XCTAssertEqual(routes.proxy(for: http), Proxy(.http, host: "dict", port: 8000))
        XCTAssertEqual(routes.proxy(for: https), Proxy(.http, host: "dicts", port: 8443))
        XCTAssertEqual(routes.bypass, ["internal"])
        // A dictionary that enables nothing leaves the environment in charge.
        XCTAssertEqual(self.routes(["http_proxy": "env:1"], dictionary: ["HTTPEnable": 0, "HTTPProxy": "off"]).proxy(for: http)?.host, "env")
    }

    func testNoneAndExplicitSettingsIgnoreTheEnvironment() {
        let environment = ["http_proxy": "env:1"]
        XCTAssertNil(ProxyRoutes.resolve(.none, dictionary: nil, environment: environment).proxy(for: http))
        let explicit = Proxy(.socks5, host: "socks", port: 1080)
        XCTAssertEqual(ProxyRoutes.resolve(.proxy(explicit), dictionary: nil, environment: environment).proxy(for: https), explicit)
    }
}
