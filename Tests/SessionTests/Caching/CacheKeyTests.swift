@testable import AFSession
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// What a request's key is made of, taken from the request as it goes out, and which requests
/// take part in caching and count as one user's: a table, without a server.
final class CacheKeyTests: XCTestCase {
    private func request(_ url: String, _ fields: [String: String] = [:], method: String = "GET", body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    func testTheTargetIsTheURLWithTheAuthorityOfTheRequestsOwnHostNormalized() {
        let rows: [(url: String, host: String?, target: String?)] = [
            ("https://api.example.com/a?b=1#top", nil, "https://api.example.com/a?b=1"),
            ("http://127.0.0.1:8080/name", nil, "http://127.0.0.1:8080/name"),
            ("http://127.0.0.1:8080/name", "tenant-a.example", "http://tenant-a.example/name"),
            ("http://127.0.0.1:8080/name?x=%20", "Tenant-B.Example:8443", "http://tenant-b.example:8443/name?x=%20"),
            ("https://api.example.com/a", "API.example.com", "https://api.example.com/a"),
            ("HTTPS://API.Example.com:443/a", nil, "https://api.example.com/a"),
            ("http://h:80/a", nil, "http://h/a"),
            ("http://[::1]:8080/a", nil, "http://[::1]:8080/a"),
            ("http://localhost:8080/a", "[::1]:8080", "http://[::1]:8080/a"),
            ("http://localhost:8080/a", "localhost:8080", "http://localhost:8080/a"),
            // A Host that is not an authority would name another target: no key, not cached.
            ("http://127.0.0.1:8080/name", "victim.invalid/admin", nil),
            ("http://127.0.0.1:8080/name", "victim.invalid?x", nil),
            ("http://127.0.0.1:8080/name", "alice@victim.invalid", nil),
            ("http://127.0.0.1:8080/name", "victim.invalid#x", nil),
            ("http://127.0.0.1:8080/name", "victim invalid", nil),
            ("http://127.0.0.1:8080/name", "victim.invalid:80a", nil),
            ("http://127.0.0.1:8080/name", "[::1", nil),
            ("http://127.0.0.1:8080/name", " ", nil),
        ]
        for row in rows {
            let fields = row.host.map { ["Host": $0] } ?? [:]
            XCTAssertEqual(CacheKey(request(row.url, fields), socketPath: nil, identity: nil, route: nil)?.target, row.target, "\(row)")
        }
    }

    func testTwoHostsOfOneURLHaveTwoTargets() {
        let a = CacheKey(request("http://127.0.0.1:8080/name", ["Host": "tenant-a.example"]), socketPath: nil, identity: nil, route: nil)
        let b = CacheKey(request("http://127.0.0.1:8080/name", ["Host": "tenant-b.example"]), socketPath: nil, identity: nil, route: nil)
        XCTAssertNotEqual(a?.target, b?.target)
    }

    func testOneHostAtTwoAddressesHasOneTargetAndTwoKeys() {
        // A staging server must never answer for production because both were asked as `api.example`.
        let production = CacheKey(request("http://10.0.0.1:8080/a", ["Host": "api.example"]), socketPath: nil, identity: nil, route: nil)
        let staging = CacheKey(request("http://10.0.0.2:8080/a", ["Host": "api.example"]), socketPath: nil, identity: nil, route: nil)
        XCTAssertEqual(production?.target, staging?.target)
        XCTAssertNotEqual(production, staging)
    }

    func testTheSocketTheCertificateAndTheRouteAreInTheKeyButNotInTheTarget() {
        let url = URL(string: "http://localhost:8080/name")!
        let keys = [
            CacheKey(url: url, host: nil),
            CacheKey(url: url, host: nil, socketPath: "/run/d.sock"),
            CacheKey(url: url, host: nil, identity: "pin"),
            CacheKey(url: url, host: nil, route: "route"),
        ]
        XCTAssertEqual(Set(keys).count, 4)
        XCTAssertEqual(Set(keys.map(\.target)).count, 1, "invalidated together")
    }

    func testWhichRequestsTakePartInCaching() {
        let rows: [(request: URLRequest, cacheable: Bool)] = [
            (request("https://a.example/x"), true),
            (request("https://a.example/x", method: "HEAD"), false),
            (request("https://a.example/x", method: "POST"), false),
            (request("https://a.example/x", body: Data("q=alice".utf8)), false),
            (request("https://a.example/x", body: Data()), true),
            (request("https://a.example/x", ["If-None-Match": "\"a\""]), false),
            (request("https://a.example/x", ["Range": "bytes=0-1"]), false),
            (request("https://alice:secret@a.example/x"), false),  // a user's credentials in the URL
            (request("https://alice@a.example/x"), false),
        ]
        for (index, row) in rows.enumerated() {
            XCTAssertEqual(CacheRules.isCacheable(row.request), row.cacheable, "row \(index)")
        }
    }

    func testEveryCredentialThatWentOutMakesTheRequestOneUsers() {
        let url = "https://a.example/x"
        let plain = CacheKey(url: URL(string: url)!, host: nil, socketPath: nil, identity: nil, route: nil)
        let certified = CacheKey(url: URL(string: url)!, host: nil, socketPath: nil, identity: "pin")
        let rows: [(sent: URLRequest, key: CacheKey, challenge: Bool, credentialed: Bool)] = [
            (request(url), plain, false, false),
            (request(url, ["Authorization": "Bearer alice"]), plain, false, true),  // the caller's or an interceptor's
            (request(url, ["Cookie": "session=1"]), plain, false, true),  // the jar's
            (request(url), certified, false, true),  // the task's or the transport's certificate
            (request(url), plain, true, true),  // a challenge answered out of sight
        ]
        for (index, row) in rows.enumerated() {
            XCTAssertEqual(CacheRules.isCredentialed(row.sent, key: row.key, answeredChallenge: row.challenge), row.credentialed, "row \(index)")
        }
    }
}
