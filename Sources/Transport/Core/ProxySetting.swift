import Foundation

/// Which proxies the libcurl transport uses (`URLSessionManager.proxy`).
public enum ProxySetting: Sendable, Hashable {
    /// The session configuration's `connectionProxyDictionary` when it sets a proxy (the keys
    /// `HTTPEnable`, `HTTPProxy`, `HTTPPort`, `HTTPSEnable`, `HTTPSProxy`, `HTTPSPort`,
    /// `SOCKSEnable`, `SOCKSProxy`, `SOCKSPort`, `ExceptionsList`); otherwise the environment
    /// as curl reads it: `http_proxy` (or `HTTP_PROXY`, except in a CGI program, where a
    /// request's `Proxy` header would set it), `https_proxy`/`HTTPS_PROXY`,
    /// `all_proxy`/`ALL_PROXY` for both, and `no_proxy`/`NO_PROXY` (see `proxies`). The
    /// default.
    case automatic
    /// No proxy, whatever the configuration and the environment say.
    case none
    /// `http` for plain HTTP requests and `https` for HTTPS requests (`nil`: direct), except to
    /// the hosts `bypass` names: host names matching themselves and their subdomains
    /// (`example.com`, `.example.com`), IP addresses, CIDR ranges (`10.0.0.0/8`), or `*` for
    /// every host.
    case proxies(http: Proxy?, https: Proxy?, bypass: [String])

    /// `proxy` for every request, except to the hosts `bypass` names.
    public static func proxy(_ proxy: Proxy, bypass: [String] = []) -> ProxySetting {
        .proxies(http: proxy, https: proxy, bypass: bypass)
    }
}
