import AFSecurity
@testable import AFTransport
import Foundation
import XCTest

/// The name of what a transport's connections are checked and routed by, which a shared cache
/// keys responses by: `nil` for the defaults, the same for the same settings, another for any
/// other policy or proxy, and no proxy password in it.
final class RouteFingerprintTests: XCTestCase {
    func testTheDefaultsHaveNoName() {
        XCTAssertNil(RouteFingerprint.of(policy: .default, proxy: .automatic))
    }

    func testTheSameSettingsHaveTheSameName() {
        var policy = SecurityPolicy.default
        policy.pinnedPublicKeyHashes = ["b", "a"]
        var reordered = SecurityPolicy.default
        reordered.pinnedPublicKeyHashes = ["a", "b"]
        XCTAssertEqual(RouteFingerprint.of(policy: policy, proxy: .automatic), RouteFingerprint.of(policy: reordered, proxy: .automatic))
    }

    func testEveryOtherPolicyOrProxyHasAnotherName() {
        var permissive = SecurityPolicy.default
        permissive.allowInvalidCertificates = true
        var noDomain = SecurityPolicy.default
        noDomain.validatesDomainName = false
        var pinned = SecurityPolicy.default
        pinned.pinningMode = .publicKey
        pinned.pinnedPublicKeyHashes = ["a"]
        let proxy = Proxy(host: "proxy.example", port: 3128)
        let names = [
            RouteFingerprint.of(policy: .default, proxy: .automatic),
            RouteFingerprint.of(policy: permissive, proxy: .automatic),
            RouteFingerprint.of(policy: noDomain, proxy: .automatic),
            RouteFingerprint.of(policy: pinned, proxy: .automatic),
            RouteFingerprint.of(policy: .default, proxy: .none),
            RouteFingerprint.of(policy: .default, proxy: .proxy(proxy)),
            RouteFingerprint.of(policy: .default, proxy: .proxy(proxy, bypass: ["localhost"])),
        ]
        XCTAssertEqual(Set(names).count, names.count)
    }

    func testAProxyPasswordIsNotInTheNameAndDoesNotChangeIt() {
        let one = Proxy(host: "proxy.example", port: 3128, username: "svc", password: "first-secret")
        let other = Proxy(host: "proxy.example", port: 3128, username: "svc", password: "second-secret")
        let name = RouteFingerprint.of(policy: .default, proxy: .proxy(one))
        XCTAssertEqual(name, RouteFingerprint.of(policy: .default, proxy: .proxy(other)))
        XCTAssertFalse(name?.contains("secret") ?? true)
        XCTAssertEqual(name.flatMap { Data(base64Encoded: $0) }?.count, 32, "a SHA-256")
    }
}
