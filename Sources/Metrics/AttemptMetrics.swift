#if Metrics
import AFNetworking
import CoreMetrics
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The metrics of one task's attempts (`MetricsInstrumentation`).
struct AttemptMetrics: TaskObserver {
    let factory: any MetricsFactory

    func willSend(_ request: inout URLRequest, attempt: AttemptStart) {
        Meter(label: MetricsInstrumentation.activeRequests, dimensions: Self.server(of: request), factory: factory).increment()
    }

    func didEnd(_ end: AttemptEnd) {
        let server = Self.server(of: end.request)
        Meter(label: MetricsInstrumentation.activeRequests, dimensions: server, factory: factory).decrement()
        var dimensions = server
        if let status = end.response?.statusCode { dimensions.append(("http.response.status_code", String(status))) }
        if let errorType = end.errorType { dimensions.append(("error.type", errorType)) }
        if let version = end.networkProtocolVersion { dimensions.append(("network.protocol.version", version)) }
        Timer(label: MetricsInstrumentation.requestDuration, dimensions: dimensions, factory: factory)
            .recordNanoseconds(Int64((end.duration * 1_000_000_000).rounded()))
        Recorder(label: MetricsInstrumentation.requestBodySize, dimensions: dimensions, factory: factory).record(end.requestBodyBytes)
        Recorder(label: MetricsInstrumentation.responseBodySize, dimensions: dimensions, factory: factory).record(end.responseBodyBytes)
    }

    func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {}

    /// `http.request.method` (`_OTHER` for a method HTTP does not define), `server.address` and
    /// `server.port` (the scheme's default when the URL names none) of `request`.
    static func server(of request: URLRequest) -> [(String, String)] {
        let url = request.url
        let port = url?.port ?? (url?.scheme?.lowercased() == "http" ? 80 : 443)
        return [("http.request.method", request.openTelemetryMethod), ("server.address", url?.host ?? ""), ("server.port", String(port))]
    }
}
#endif
