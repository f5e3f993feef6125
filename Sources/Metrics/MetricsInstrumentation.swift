#if Metrics
import AFNetworking
import CoreMetrics
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records OpenTelemetry's HTTP client metrics of every attempt of a manager's tasks through
/// swift-metrics: `http.client.request.duration` (a `Timer`, one value per attempt, a redirect
/// or a retry its own), `http.client.active_requests` (a `Meter` of the attempts in flight),
/// `http.client.request.body.size` and `http.client.response.body.size` (`Recorder`s, in
/// bytes). Their dimensions: `http.request.method` (`_OTHER` for a method HTTP does not
/// define), `server.address`, `server.port`, and for the ends of attempts
/// `http.response.status_code` when a response arrived, `error.type` for a failure or a 4xx or
/// 5xx (`AttemptEnd.errorType`), `network.protocol.version` when known. Set it as the manager's
/// `instrumentation` (or in an `InstrumentationList`). Needs the `Metrics` trait. Beyond
/// AFNetworking.
public struct MetricsInstrumentation: TaskInstrumentation {
    /// The label of each attempt's duration (a `Timer`), as OpenTelemetry names it.
    public static let requestDuration = "http.client.request.duration"
    /// The label of the attempts in flight (a `Meter`), as OpenTelemetry names it.
    public static let activeRequests = "http.client.active_requests"
    /// The label of each attempt's request body size in bytes (a `Recorder`), as OpenTelemetry names it.
    public static let requestBodySize = "http.client.request.body.size"
    /// The label of each attempt's response body size in bytes (a `Recorder`), as OpenTelemetry names it.
    public static let responseBodySize = "http.client.response.body.size"

    /// Where the metrics go. Default: `MetricsSystem.factory`, as bootstrapped when the
    /// instrumentation is made.
    public let factory: any MetricsFactory

    /// Records to `factory` (default: the bootstrapped `MetricsSystem.factory`).
    public init(factory: (any MetricsFactory)? = nil) {
        self.factory = factory ?? MetricsSystem.factory
    }

    /// The task's attempts' metrics.
    public func observer(for request: URLRequest) -> (any TaskObserver)? {
        AttemptMetrics(factory: factory)
    }
}
#endif
