import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The request's method as OpenTelemetry's `http.request.method`: the method (default
    /// `GET`) when it is one of HTTP's, else `_OTHER` (keeping the cardinality of a metric's
    /// dimension bounded; a span then carries the method as `http.request.method_original`).
    /// Beyond AFNetworking.
    public var openTelemetryMethod: String {
        let method = httpMethod ?? "GET"
        // A switch rather than a set's lookup: every method is a small string, compared as a
        // few words without hashing, and this runs twice an attempt with metrics and tracing on.
        switch method {
        case "GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS", "CONNECT", "TRACE", "QUERY": return method
        default: return "_OTHER"
        }
    }
}
