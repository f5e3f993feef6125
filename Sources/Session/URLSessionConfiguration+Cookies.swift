import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// `request` with the stored cookies for its URL, as URLSession sets them when it creates
    /// a task. URLSession on Linux does not do it for the request a delegate chose to follow a
    /// redirect with, so a cookie set by the redirect response would not reach its target.
    func addingCookies(to request: URLRequest) -> URLRequest {
        guard httpShouldSetCookies, let storage = httpCookieStorage, let url = request.url else { return request }
        let value = HTTPCookie.requestHeaderFields(with: storage.cookies(for: url) ?? [])["Cookie"] ?? ""
        var request = request
        request.setValue(value.isEmpty ? nil : value, forHTTPHeaderField: "Cookie")
        return request
    }
}
