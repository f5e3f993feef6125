import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Certificate {
    /// Whether the certificate names `hostname`, per RFC 6125 and as strictly as both OpenSSL's
    /// `X509_check_host` and curl: case-insensitive; a trailing dot is compared as written (on
    /// either side OpenSSL refuses it); an IP literal matches only an `iPAddress` name, never a
    /// wildcard or the common name; a wildcard matches exactly one label and only as the whole
    /// left-most label of a name with at least two more labels (`*.example.com`, not `*.com` or
    /// `f*.example.com`); the common name is consulted only when there are no DNS or IP names
    /// (curl's rule: OpenSSL alone would read it beside IP names).
    public func matches(hostname: String) -> Bool {
        let host = hostname.lowercased()
        if let address = Self.ipAddressBytes(host) {
            return subjectAlternativeNames.contains { $0 == .ip(address) }
        }
        let dnsNames = subjectAlternativeNames.compactMap { name -> String? in
            if case .dns(let value) = name { return value }
            return nil
        }
        let hasAddresses = subjectAlternativeNames.contains { if case .ip = $0 { return true } else { return false } }
        let patterns = dnsNames.isEmpty && !hasAddresses ? subjectCommonName.map { [$0] } ?? [] : dnsNames
        return patterns.contains { Self.matches(pattern: $0.lowercased(), host: host) }
    }

    private static func matches(pattern: String, host: String) -> Bool {
        guard !pattern.isEmpty, !host.isEmpty else { return false }
        guard pattern.hasPrefix("*.") else { return pattern == host }
        let suffix = pattern.dropFirst(2)
        guard suffix.split(separator: ".", omittingEmptySubsequences: false).count >= 2,
              !suffix.contains("*"),
              let dot = host.firstIndex(of: ".") else { return false }
        return host[..<dot].isEmpty == false && host[host.index(after: dot)...] == suffix
    }

    /// The bytes of an IPv4 or IPv6 literal (brackets allowed), or `nil` for a DNS name.
    static func ipAddressBytes(_ host: String) -> [UInt8]? {
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
