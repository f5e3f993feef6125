#if Metrics
import AFLocking
import AFNetworking
import CoreMetrics
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The metrics of one task's attempts (`MetricsInstrumentation`). The server dimensions and
/// the active-requests meter of an attempt are made once, at its request sent, and used again
/// at its end.
final class AttemptMetrics: TaskObserver {
    let factory: any MetricsFactory
    /// The attempt in flight's server dimensions and its meter.
    private let inFlight = Locked<(server: [(String, String)], meter: Meter)?>(nil)

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func willSend(_ request: inout URLRequest, attempt: AttemptStart) {
        let server = Self.server(of: request)
        let meter = Meter(label: MetricsInstrumentation.activeRequests, dimensions: server, factory: factory)
        meter.increment()
        inFlight.withLock { $0 = (server, meter) }
    }

    func didEnd(_ end: AttemptEnd) {
        guard let (server, meter) = inFlight.withLock({ inFlight in defer { inFlight = nil }; return inFlight }) else { return }
        meter.decrement()
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
