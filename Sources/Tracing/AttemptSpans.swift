#if Tracing
import AFLocking
import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Tracing

/// The spans of one task's attempts (`TracingInstrumentation`): the current one, from its
/// request sent to its end.
final class AttemptSpans: TaskObserver {
    let tracer: any Tracer
    let redaction: Redaction
    /// The context the task was made in.
    let parent: ServiceContext
    private let span = Locked<(any Span)?>(nil)

    init(tracer: any Tracer, redaction: Redaction, parent: ServiceContext) {
        self.tracer = tracer
        self.redaction = redaction
        self.parent = parent
    }

    func willSend(_ request: inout URLRequest, attempt: AttemptStart) {
        let method = request.openTelemetryMethod
        let started = tracer.startSpan(method == "_OTHER" ? "HTTP" : method, context: parent, ofKind: .client)
        // A span that records nothing (a no-op tracer's, one sampled out) is given no attributes:
        // `url.full` alone parses the URL twice. Its context is still propagated.
        if started.isRecording {
            started.attributes["http.request.method"] = method
            if method == "_OTHER" { started.attributes["http.request.method_original"] = request.httpMethod }
            if let url = request.url {
                started.attributes["server.address"] = url.host ?? ""
                started.attributes["server.port"] = url.port ?? (url.scheme?.lowercased() == "http" ? 80 : 443)
                started.attributes["url.full"] = fullURL(url)
            }
            if attempt.resendCount > 0 { started.attributes["http.request.resend_count"] = attempt.resendCount }
        }
        tracer.inject(started.context, into: &request, using: HeaderInjector())
        span.withLock { $0 = started }
    }

    func didEnd(_ end: AttemptEnd) {
        guard let ended = span.withLock({ span in defer { span = nil }; return span }) else { return }
        guard ended.isRecording else { return ended.end() }
        if let status = end.response?.statusCode { ended.attributes["http.response.status_code"] = status }
        if let version = end.networkProtocolVersion { ended.attributes["network.protocol.version"] = version }
        if let errorType = end.errorType {
            ended.attributes["error.type"] = errorType
            if let error = end.error { ended.recordError(error) }
            ended.setStatus(SpanStatus(code: .error))
        }
        ended.end()
    }

    func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {}

    /// `url` without user and password, its secret parameter values hidden.
    private func fullURL(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return redaction.url(url) }
        components.user = nil
        components.password = nil
        return redaction.url(components.url ?? url)
    }
}

/// Sets each propagated value as a request header field.
private struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}
#endif
