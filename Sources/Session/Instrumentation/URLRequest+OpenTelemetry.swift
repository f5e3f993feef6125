import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The methods OpenTelemetry's HTTP conventions know, spelled as they require.
    private static let openTelemetryMethods: Set<String> = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE"]

    /// The request's method as OpenTelemetry's `http.request.method`: the method (default
    /// `GET`) when it is one of HTTP's, else `_OTHER` (keeping the cardinality of a metric's
    /// dimension bounded; a span then carries the method as `http.request.method_original`).
    /// Beyond AFNetworking.
    public var openTelemetryMethod: String {
        let method = httpMethod ?? "GET"
        return Self.openTelemetryMethods.contains(method) ? method : "_OTHER"
    }
}
