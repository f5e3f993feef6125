import AFSecurity
import Foundation

/// A stable name for what a transport's connections are checked and routed by beyond their
/// URL: its security policy (pinning, anchors, what it lets through) and its proxy setting.
/// Two transports with the same name are interchangeable for a response: a cache shared by
/// managers keys responses by it, so that one fetched through a permissive policy or another
/// proxy never answers a manager that pins or routes otherwise. `nil` for the defaults (the
/// system's trust, `ProxySetting.automatic`); else the SHA-256 of a canonical text, base64,
/// which holds no proxy password and stays the same from one run to the next. Pure.
package enum RouteFingerprint {
    package static func of(policy: SecurityPolicy, proxy: ProxySetting) -> String? {
        guard policy != .default || proxy != .automatic else { return nil }
        let pins = policy.pinnedPublicKeyHashes.sorted() + policy.pinnedCertificates.map { "cert:" + Data($0.derEncoded).base64EncodedString() }.sorted()
        let anchors = policy.anchorCertificates.map { Data($0.derEncoded).base64EncodedString() }.sorted()
        let lines = [
            "pinning=\(policy.pinningMode)",
            "allowInvalidCertificates=\(policy.allowInvalidCertificates)",
            "validatesDomainName=\(policy.validatesDomainName)",
            "trustsPartialChains=\(policy.trustsPartialChains)",
            "pins=" + pins.joined(separator: ","),
            "anchors=" + anchors.joined(separator: ","),
            "proxy=" + text(of: proxy),
        ]
        return Data(SHA256.hash(Array(lines.joined(separator: "\n").utf8))).base64EncodedString()
    }

    /// `proxy` as canonical text: each proxy's kind, address, user and anchors, and the bypass list.
    private static func text(of proxy: ProxySetting) -> String {
        switch proxy {
        case .automatic: return "automatic"
        case .none: return "none"
        case .proxies(let http, let https, let bypass):
            let describe = { (proxy: Proxy?) -> String in
                guard let proxy else { return "direct" }
                let anchors = proxy.anchorCertificates.map { Data($0.derEncoded).base64EncodedString() }.sorted().joined(separator: ",")
                return "\(proxy.kind.rawValue)://\(proxy.username ?? "")@\(proxy.host):\(proxy.port)[\(anchors)]"
            }
            return "http=\(describe(http));https=\(describe(https));bypass=\(bypass.sorted().joined(separator: ","))"
        }
    }
}
