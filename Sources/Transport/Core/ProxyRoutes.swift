import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The proxy each request of a transport goes through, resolved once from the manager's
/// `ProxySetting`, the session configuration and the environment. Pure: resolving reads only
/// its arguments.
struct ProxyRoutes: Sendable, Equatable {
    var http: Proxy?
    var https: Proxy?
    /// Hosts reached directly (libcurl's `CURLOPT_NOPROXY` syntax).
    var bypass: [String] = []

    /// The routes `setting` gives, with `dictionary` (a `connectionProxyDictionary`) and
    /// `environment` for `.automatic`.
    static func resolve(_ setting: ProxySetting, dictionary: [AnyHashable: Any]?, environment: [String: String]) -> ProxyRoutes {
        switch setting {
        case .none:
            return ProxyRoutes()
        case .proxies(let http, let https, let bypass):
            return ProxyRoutes(http: http, https: https, bypass: bypass)
        case .automatic:
            if let dictionary, let routes = fromDictionary(dictionary) { return routes }
            return fromEnvironment(environment)
        }
    }

    /// The proxy for a request to `url`: `nil` for a direct connection (no proxy for its
    /// scheme, or a host the bypass list names).
    func proxy(for url: URL) -> Proxy? {
        guard let proxy = url.scheme?.lowercased() == "https" ? https : http else { return nil }
        guard let host = url.host?.lowercased() else { return proxy }
        return bypass.contains { Self.entry($0, matches: host) } ? nil : proxy
    }

    /// Whether a `NO_PROXY` entry names `host` (lower-case; an IPv6 address without brackets).
    static func entry(_ entry: String, matches host: String) -> Bool {
        let entry = entry.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if entry == "*" { return true }
        let bareHost = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if let slash = entry.firstIndex(of: "/") {
            guard let network = IPAddressBytes(String(entry[..<slash])), let bits = Int(entry[entry.index(after: slash)...]),
                  let address = IPAddressBytes(bareHost) else { return false }
            return network.prefix(bits, equals: address)
        }
        if let address = IPAddressBytes(bareHost) { return IPAddressBytes(entry) == address }
        let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
        return !name.isEmpty && (bareHost == name || bareHost.hasSuffix("." + name))
    }

    /// Foundation's proxy keys (kCFNetworkProxies*); `nil` when the dictionary enables none.
    private static func fromDictionary(_ dictionary: [AnyHashable: Any]) -> ProxyRoutes? {
        func proxy(_ prefix: String, kind: Proxy.Kind) -> Proxy? {
            guard isEnabled(dictionary[prefix + "Enable"]), let host = dictionary[prefix + "Proxy"] as? String, !host.isEmpty else { return nil }
            let port = (dictionary[prefix + "Port"] as? Int) ?? (dictionary[prefix + "Port"] as? String).flatMap { Int($0) } ?? 1080
            return Proxy(kind, host: host, port: port)
        }
        let socks = proxy("SOCKS", kind: .socks5)
        let routes = ProxyRoutes(http: proxy("HTTP", kind: .http) ?? socks, https: proxy("HTTPS", kind: .http) ?? socks,
                                 bypass: (dictionary["ExceptionsList"] as? [String]) ?? [])
        return routes.http == nil && routes.https == nil ? nil : routes
    }

    private static func isEnabled(_ value: Any?) -> Bool {
        switch value {
        case let flag as Bool: return flag
        case let number as Int: return number != 0
        case let number as NSNumber: return number.boolValue
        case let text as String: return text == "1" || text.lowercased() == "true"
        default: return false
        }
    }

    private static func fromEnvironment(_ environment: [String: String]) -> ProxyRoutes {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        // HTTP_PROXY is a request header's name in CGI (httpoxy): ignored there, as curl and Go do.
        let isCGI = environment["REQUEST_METHOD"] != nil
        let all = value("all_proxy", "ALL_PROXY")
        let http = value("http_proxy") ?? (isCGI ? nil : value("HTTP_PROXY")) ?? all
        let https = value("https_proxy", "HTTPS_PROXY") ?? all
        let bypass = (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return ProxyRoutes(http: http.flatMap(Proxy.init(url:)), https: https.flatMap(Proxy.init(url:)), bypass: bypass)
    }
}

/// An IPv4 or IPv6 address as its bytes, for matching CIDR ranges.
struct IPAddressBytes: Equatable {
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// Whether the first `bits` bits of both addresses (of one family) are equal.
    func prefix(_ bits: Int, equals other: IPAddressBytes) -> Bool {
        guard bytes.count == other.bytes.count, bits >= 0, bits <= bytes.count * 8 else { return false }
        for index in 0..<bytes.count {
            let remaining = bits - index * 8
            if remaining <= 0 { break }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if bytes[index] & mask != other.bytes[index] & mask { return false }
        }
        return true
    }
}
