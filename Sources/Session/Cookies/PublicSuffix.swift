import Foundation
import PublicSuffixBridge

/// Which `Domain` attributes a cookie may have: never a public suffix (`com`, `co.uk`,
/// `github.io`), where one server would set cookies for every other site under it. The list
/// is libpsl's (loaded at run time as libcurl is, reading the system's `publicsuffix` data),
/// as curl's; without libpsl, a fallback refuses every single-label domain (`com`,
/// `localhost`) and says so in `source`.
enum PublicSuffix {
    /// Where the rule comes from: the public suffix list, or the fallback.
    static var source: String {
        afn_psl_cookie_domain_acceptable("example.com", "example.com") < 0
            ? "fallback: single-label domains refused (libpsl.so.5 cannot be loaded)" : "the public suffix list (libpsl)"
    }

    /// Whether a response from `host` may set a cookie for `domain` (lower-case, without a
    /// leading dot or a trailing one: libpsl does not call `co.uk.` a public suffix).
    static func allows(domain: String, from host: String) -> Bool {
        if domain.utf8.elementsEqual(host.utf8) { return true }
        switch afn_psl_cookie_domain_acceptable(host, domain) {
        case 1: return true
        case 0: return false
        default: return domain.utf8.contains(UInt8(ascii: "."))
        }
    }
}
