#if Tracing
import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Tracing

/// Traces every attempt of a manager's tasks through swift-distributed-tracing: one client
/// span per request sent (the first, each redirect followed and each retry its own, with
/// `http.request.resend_count` from the second on), named by its method (`HTTP` for a method
/// HTTP does not define, then `_OTHER` with `http.request.method_original`) and parented to the
/// `ServiceContext` that was current on the Swift task that made the task. Each attempt's
/// request carries that span's context in its headers (`traceparent` with a W3C tracer),
/// injected through the tracer (`Instrument.inject`). Attributes: `http.request.method`,
/// `server.address`, `server.port`, `url.full` (no user or password, secret parameter values
/// hidden by `redaction`), then `http.response.status_code`, `error.type` and
/// `network.protocol.version`; the status is an error for a failure and for a 4xx or 5xx.
///
/// A span ends when its attempt does: at the redirect it follows, at the retry its failure
/// decided, or at the task's completion, after the whole response body arrived (AsyncHTTPClient
/// ends its span at the response head). Set it as the manager's `instrumentation` (or in an
/// `InstrumentationList`). Needs the `Tracing` trait. Beyond AFNetworking.
public struct TracingInstrumentation: TaskInstrumentation {
    /// The tracer of the spans. Default: `InstrumentationSystem.tracer` as bootstrapped when the
    /// instrumentation is made.
    public let tracer: any Tracer
    /// What `url.full` hides. Default `Redaction()`.
    public let redaction: Redaction

    /// Traces through `tracer` (default: the bootstrapped one), `url.full` redacted by `redaction`.
    public init(tracer: (any Tracer)? = nil, redaction: Redaction = Redaction()) {
        self.tracer = tracer ?? InstrumentationSystem.tracer
        self.redaction = redaction
    }

    /// The task's spans, parented to the caller's current `ServiceContext` (top level if none).
    public func observer(for request: URLRequest) -> (any TaskObserver)? {
        AttemptSpans(tracer: tracer, redaction: redaction, parent: ServiceContext.current ?? .topLevel)
    }
}
#endif
