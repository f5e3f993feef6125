@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What becomes of a redirect, as a table without a server: the limit, the origin rule for
/// credentials and secrets, Unix domain sockets, and bodies that cannot be sent again.
final class RedirectPolicyTests: XCTestCase {
    private let origin = URL(string: "https://api.example.com:8443/v1/items?q=1")!
    private let secrets = ["Authorization": "Bearer secret", "Cookie": "session=1", "Proxy-Authorization": "Basic cA==",
                           "Origin": "https://app.example.com", "X-Api-Key": "k", "Private-Token": "p"]

    /// The previous request with every secret header and `Accept`, redirected to `target`.
    private func followed(from previous: URL, to target: String, trusted: Bool = false) -> Result<URLRequest, RedirectPolicy.Refusal> {
        var proposed = URLRequest(url: URL(string: target)!)
        for (name, value) in secrets { proposed.setValue(value, forHTTPHeaderField: name) }
        proposed.setValue("application/json", forHTTPHeaderField: "Accept")
        return policy(trusted: trusted).follow(proposed, from: previous)
    }

    /// The manager's default rules (its `redaction` given), or redirects trusted across origins.
    private func policy(trusted: Bool = false, redaction: Redaction = Redaction()) -> RedirectPolicy {
        RedirectPolicy(redaction: redaction, sendsCredentialsAcrossOrigins: trusted)
    }

    /// The decision on a `status` redirect to `target` from `origin`, the `number`-th.
    private func decision(
        _ status: Int, to target: String = "https://api.example.com:8443/next", number: Int = 1, hasBody: Bool = false,
        resendsBody: Bool = false
    ) -> String {
        var proposed = URLRequest(url: URL(string: target)!)
        proposed.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        switch policy().decide(proposed, status: status, from: origin, redirectNumber: number, hasRequestBody: hasBody, resendsBody: resendsBody) {
        case .follow(let next): return next.value(forHTTPHeaderField: "Authorization") == nil ? "follow without credentials" : "follow"
        case .tooMany: return "too many"
        case .refused(let refusal): return "refused \(refusal)"
        case .wouldDropBody: return "would drop body"
        }
    }

    func testSixteenRedirectsAreFollowedAndTheSeventeenthIsNot() {
        XCTAssertEqual(RedirectPolicy.maximumRedirects, 16)
        XCTAssertEqual(decision(302, number: 16), "follow")
        XCTAssertEqual(decision(302, number: 17), "too many")
    }

    func testA307Or308OfABodyTheCarrierCannotSendAgainIsNotFollowed() {
        for status in [307, 308] {
            XCTAssertEqual(decision(status, hasBody: true, resendsBody: false), "would drop body", "\(status)")
            XCTAssertEqual(decision(status, hasBody: true, resendsBody: true), "follow", "\(status)")
            XCTAssertEqual(decision(status, hasBody: false, resendsBody: false), "follow", "\(status)")
        }
        // The others send no body again (a POST's 301, 302 and 303 become GETs).
        for status in [301, 302, 303] { XCTAssertEqual(decision(status, hasBody: true, resendsBody: false), "follow", "\(status)") }
    }

    func testEveryDecisionAppliesTheOriginRules() {
        XCTAssertEqual(decision(302, to: "https://other.example.net/"), "follow without credentials")
        XCTAssertEqual(decision(307, to: "http+unix://%2Fvar%2Frun%2Fdocker.sock/x", hasBody: true, resendsBody: true), "refused intoUnixSocket")
    }

    func testTheOriginIsSchemeHostAndPortWithDefaultPorts() {
        XCTAssertEqual(RedirectPolicy.origin(of: URL(string: "https://API.Example.com/x")!), "https://api.example.com:443")
        XCTAssertEqual(RedirectPolicy.origin(of: URL(string: "http://a/")!), "http://a:80")
        XCTAssertEqual(RedirectPolicy.origin(of: URL(string: "http://a:80/")!), RedirectPolicy.origin(of: URL(string: "http://a/")!))
        XCTAssertNotEqual(RedirectPolicy.origin(of: URL(string: "https://a/")!), RedirectPolicy.origin(of: URL(string: "http://a/")!))
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
        let next = try policy(redaction: Redaction(additionalHeaders: ["X-Tenant"])).follow(proposed, from: origin).get()
        XCTAssertNil(next.value(forHTTPHeaderField: "X-Tenant"))
    }

    func testHeadersNamedLikeSecretsAreDroppedToo() throws {
        var proposed = URLRequest(url: URL(string: "https://other.example.net/")!)
        for name in ["X-Access-Token", "X-Session-Secret", "X-Upstream-Authorization", "X-My-Apikey", "Set-Cookie2"] {
            proposed.setValue("s", forHTTPHeaderField: name)
        }
        proposed.setValue("keep", forHTTPHeaderField: "X-Request-Id")
        let next = try policy().follow(proposed, from: origin).get()
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
