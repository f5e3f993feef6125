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
/// at its end. The backend's handlers are used directly, as `Meter`, `Timer` and `Recorder`
/// would use them: those wrappers are objects made and freed per attempt for one call each.
final class AttemptMetrics: TaskObserver {
    let factory: any MetricsFactory
    /// The attempt in flight's server dimensions and its meter.
    private let inFlight = Locked<(server: [(String, String)], meter: any MeterHandler)?>(nil)

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func willSend(_ request: inout URLRequest, attempt: AttemptStart) {
        let server = Self.server(of: request)
        let meter = factory.makeMeter(label: MetricsInstrumentation.activeRequests, dimensions: server)
        meter.increment(by: 1.0)
        inFlight.withLock { $0 = (server, meter) }
    }

    func didEnd(_ end: AttemptEnd) {
        guard let (server, meter) = inFlight.withLock({ inFlight in defer { inFlight = nil }; return inFlight }) else { return }
        meter.decrement(by: 1.0)
        var dimensions = server
        if let status = end.response?.statusCode { dimensions.append(("http.response.status_code", String(status))) }
        if let errorType = end.errorType { dimensions.append(("error.type", errorType)) }
        if let version = end.networkProtocolVersion { dimensions.append(("network.protocol.version", version)) }
        factory.makeTimer(label: MetricsInstrumentation.requestDuration, dimensions: dimensions)
            .recordNanoseconds(Int64((end.duration * 1_000_000_000).rounded()))
        factory.makeRecorder(label: MetricsInstrumentation.requestBodySize, dimensions: dimensions, aggregate: true).record(end.requestBodyBytes)
        factory.makeRecorder(label: MetricsInstrumentation.responseBodySize, dimensions: dimensions, aggregate: true).record(end.responseBodyBytes)
    }

    func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {}

    /// `http.request.method` (`_OTHER` for a method HTTP does not define), `server.address` and
    /// `server.port` (the scheme's default when the URL names none) of `request`.
    static func server(of request: URLRequest) -> [(String, String)] {
        let url = request.url
        let port = url?.port ?? (url?.scheme?.lowercased() == "http" ? 80 : 443)
        // Room for the three dimensions `didEnd(_:)` may add, so that its appends grow nothing.
        var server: [(String, String)] = []
        server.reserveCapacity(6)
        server.append(("http.request.method", request.openTelemetryMethod))
        server.append(("server.address", url?.host ?? ""))
        server.append(("server.port", String(port)))
        return server
    }
}
#endif
