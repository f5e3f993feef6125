import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The parts of a `URLSessionConfiguration` that URLSession leaves to the protocol carrying a
/// request, applied by `CurlTransfer` as URLSession's own protocol applies them. (URLSession
/// adds stored cookies to each task's request itself, and the manager to redirects.)
struct CurlSessionSettings: @unchecked Sendable {
    // @unchecked: only `cookieStorage` is not Sendable; HTTPCookieStorage locks itself.

    /// Sent with every request unless the request sets the same header (any case).
    let additionalHeaders: [(name: String, value: String)]
    /// Receives the cookies of responses, unless the accept policy is `.never`.
    let cookieStorage: HTTPCookieStorage?
    /// Connections libcurl opens to one host at most.
    let maximumConnectionsPerHost: Int

    init(_ configuration: URLSessionConfiguration) {
        additionalHeaders = (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }.sorted { $0.name < $1.name }
        cookieStorage = configuration.httpCookieAcceptPolicy == .never ? nil : configuration.httpCookieStorage
        maximumConnectionsPerHost = max(1, configuration.httpMaximumConnectionsPerHost)
    }

    /// `request`'s headers over the additional headers, without the ones `excluded` names
    /// (lower-case).
    func headers(of request: URLRequest, excluding excluded: Set<String>) -> [(name: String, value: String)] {
        var own: [(name: String, value: String)] = []
        var ownNames: Set<String> = []
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            let lowercased = name.lowercased()
            if !additionalHeaders.isEmpty { ownNames.insert(lowercased) }
            if !excluded.contains(lowercased) { own.append((name, value)) }
        }
        own.sort { $0.name < $1.name }
        guard !additionalHeaders.isEmpty else { return own }
        let inherited = additionalHeaders.filter { header in
            let lowercased = header.name.lowercased()
            return !ownNames.contains(lowercased) && !excluded.contains(lowercased)
        }
        return inherited + own
    }

    /// Stores the cookies of a response from `url`, one `Set-Cookie` value at a time (joined,
    /// the commas of their dates would split them wrongly).
    func storeCookies(_ setCookieValues: [String], from url: URL) {
        guard let storage = cookieStorage else { return }
        let cookies = setCookieValues.flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url) }
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }
}
