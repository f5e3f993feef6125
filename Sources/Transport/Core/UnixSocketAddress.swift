import Foundation

/// A request to a server on a Unix domain socket, in the URL form AsyncHTTPClient uses:
/// `http+unix://<percent-encoded socket path>/<path>?<query>` (or `https+unix`), for example
/// `http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json`. Pure: tested without a server.
struct UnixSocketAddress: Equatable {
    /// The socket's path in the file system.
    let socketPath: String
    /// The URL libcurl requests over the socket: the same path and query on `localhost`, in
    /// `http` or `https`.
    let requestURL: URL

    /// The schemes of the form, lower-case.
    static let schemes: Set<String> = ["http+unix", "https+unix"]

    /// The address `url` names, or `nil` when it is not of the form (another scheme, or no
    /// socket path).
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), Self.schemes.contains(scheme),
              let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let host = components.percentEncodedHost, let path = host.removingPercentEncoding, !path.isEmpty else { return nil }
        var request = URLComponents()
        request.scheme = String(scheme.dropLast("+unix".count))
        request.host = "localhost"
        request.percentEncodedPath = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        request.percentEncodedQuery = components.percentEncodedQuery
        guard let requestURL = request.url else { return nil }
        socketPath = path
        self.requestURL = requestURL
    }
}
