import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The parts of a `URLSessionConfiguration` that URLSession leaves to the protocol carrying a
/// request, applied by `CurlTransfer` as URLSession's own protocol applies them. (URLSession
/// adds stored cookies to each task's request itself, and the manager to redirects; the
/// manager puts the configuration's additional headers on each task's request.)
struct CurlSessionSettings: Sendable {

    /// Receives the cookies of responses (the manager's jar), unless the accept policy is `.never`.
    let cookieJar: (any ResponseCookieStore)?
    /// Connections libcurl opens to one host at most.
    let maximumConnectionsPerHost: Int

    init(_ configuration: URLSessionConfiguration, cookieJar: (any ResponseCookieStore)?) {
        self.cookieJar = configuration.httpCookieAcceptPolicy == .never ? nil : cookieJar
        maximumConnectionsPerHost = max(1, configuration.httpMaximumConnectionsPerHost)
    }

    /// `request`'s headers, sorted by name, without the ones `excluded` names (lower-case).
    func headers(of request: URLRequest, excluding excluded: Set<String>) -> [(name: String, value: String)] {
        (request.allHTTPHeaderFields ?? [:]).filter { !excluded.contains($0.key.lowercased()) }
            .map { (name: $0.key, value: $0.value) }.sorted { $0.name < $1.name }
    }

    /// Stores the cookies of a response from `url`, one `Set-Cookie` value at a time (joined,
    /// the commas of their dates would split them wrongly).
    func storeCookies(_ setCookieValues: [String], from url: URL) {
        cookieJar?.store(setCookies: setCookieValues, from: url)
    }
}
