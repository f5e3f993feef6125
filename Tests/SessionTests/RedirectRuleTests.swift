@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What crosses a redirect, as a table without a server: the origin rule for credentials and
/// secrets, and Unix domain sockets.
final class RedirectRuleTests: XCTestCase {
    private let origin = URL(string: "https://api.example.com:8443/v1/items?q=1")!
    private let secrets = ["Authorization": "Bearer secret", "Cookie": "session=1", "Proxy-Authorization": "Basic cA==",
                           "Origin": "https://app.example.com", "X-Api-Key": "k", "Private-Token": "p"]

    /// The previous request with every secret header and `Accept`, redirected to `target`.
    private func followed(from previous: URL, to target: String, trusted: Bool = false) -> Result<URLRequest, RedirectRule.Refusal> {
        var proposed = URLRequest(url: URL(string: target)!)
        for (name, value) in secrets { proposed.setValue(value, forHTTPHeaderField: name) }
        proposed.setValue("application/json", forHTTPHeaderField: "Accept")
        return RedirectRule.follow(proposed, from: previous, redaction: Redaction(), trusted: trusted)
    }

    func testTheOriginIsSchemeHostAndPortWithDefaultPorts() {
        XCTAssertEqual(RedirectRule.origin(of: URL(string: "https://API.Example.com/x")!), "https://api.example.com:443")
        XCTAssertEqual(RedirectRule.origin(of: URL(string: "http://a/")!), "http://a:80")
        XCTAssertEqual(RedirectRule.origin(of: URL(string: "http://a:80/")!), RedirectRule.origin(of: URL(string: "http://a/")!))
        XCTAssertNotEqual(RedirectRule.origin(of: URL(string: "https://a/")!), RedirectRule.origin(of: URL(string: "http://a/")!))
    }

    func testSameOriginRedirectsKeepEveryHeader() throws {
        for target in ["https://api.example.com:8443/other", "https://API.EXAMPLE.COM:8443/x?y"] {
            let next = try followed(from: origin, to: target).get()
            for (name, value) in secrets { XCTAssertEqual(next.value(forHTTPHeaderField: name), value, "\(target) \(name)") }
        }
        let defaultPort = try followed(from: URL(string: "https://a.example/x")!, to: "https://a.example:443/y").get()
        XCTAssertEqual(defaultPort.value(forHTTPHeaderField: "Authorization"), "Bearer secret")
    }

    func testAnyChangeOfOriginDropsCredentialsAndSecretsButNotOtherHeaders() throws {
        let targets = ["https://evil.example.net:8443/", "https://api.example.com:9443/", "https://api.example.com/",
                       "http://api.example.com:8443/", "https://sub.api.example.com:8443/"]
        for target in targets {
            let next = try followed(from: origin, to: target).get()
            for name in secrets.keys { XCTAssertNil(next.value(forHTTPHeaderField: name), "\(target) kept \(name)") }
            XCTAssertEqual(next.value(forHTTPHeaderField: "Accept"), "application/json", target)
        }
    }

    func testHTTPSToHTTPOnTheSameHostAndDefaultPortsIsAnotherOrigin() throws {
        let next = try followed(from: URL(string: "https://api.example.com/x")!, to: "http://api.example.com/x").get()
        XCTAssertNil(next.value(forHTTPHeaderField: "Authorization"))
    }

    func testATrustedRedirectKeepsEverything() throws {
        let next = try followed(from: origin, to: "https://other.example.net/", trusted: true).get()
        for (name, value) in secrets { XCTAssertEqual(next.value(forHTTPHeaderField: name), value, name) }
    }

    func testTheManagersOwnSensitiveHeadersAreDroppedToo() throws {
        var proposed = URLRequest(url: URL(string: "https://other.example.net/")!)
        proposed.setValue("t", forHTTPHeaderField: "X-Tenant")
        let next = try RedirectRule.follow(proposed, from: origin, redaction: Redaction(additionalHeaders: ["X-Tenant"]), trusted: false).get()
        XCTAssertNil(next.value(forHTTPHeaderField: "X-Tenant"))
    }

    func testHeadersNamedLikeSecretsAreDroppedToo() throws {
        var proposed = URLRequest(url: URL(string: "https://other.example.net/")!)
        for name in ["X-Access-Token", "X-Session-Secret", "X-Upstream-Authorization", "X-My-Apikey", "Set-Cookie2"] {
            proposed.setValue("s", forHTTPHeaderField: name)
        }
        proposed.setValue("keep", forHTTPHeaderField: "X-Request-Id")
        let next = try RedirectRule.follow(proposed, from: origin, redaction: Redaction(), trusted: false).get()
        XCTAssertEqual(next.allHTTPHeaderFields, ["X-Request-Id": "keep"])
    }

    func testARedirectIntoAUnixSocketIsRefusedFromTCPAndFromAnotherSocket() {
        let docker = "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json"
        XCTAssertEqual(followed(from: origin, to: docker), .failure(.intoUnixSocket))
        XCTAssertEqual(followed(from: origin, to: docker, trusted: true), .failure(.intoUnixSocket), "trust does not open sockets")
        XCTAssertEqual(followed(from: URL(string: "http+unix://%2Ftmp%2Fapp.sock/a")!, to: docker), .failure(.intoUnixSocket))
        XCTAssertNoThrow(try followed(from: URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/a")!, to: docker).get())
    }
}
