#if Logging
import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// The lines of one task (`LoggingInstrumentation`), to its logger with its request id.
struct RequestLog: TaskObserver {
    let logger: Logger
    let redaction: Redaction

    func willSend(_ request: inout URLRequest, attempt: AttemptStart) {
        logger.trace("sending request", metadata: metadata(of: request).merging([
            "http.request.resend_count": "\(attempt.resendCount)",
            "http.request.header": .dictionary(Dictionary(redaction.headerFields(of: request).map { ($0.name, .string($0.value)) },
                                                          uniquingKeysWith: { first, _ in first })),
        ]) { $1 })
    }

    func didEnd(_ end: AttemptEnd) {
        switch end.next {
        case .completion:
            logger.trace("attempt ended", metadata: metadata(of: end))
        case .redirect:
            logger.trace("attempt redirected", metadata: metadata(of: end))
        case .retry(let delay):
            logger.warning("attempt failed; retrying", metadata: metadata(of: end).merging(["retry_delay_ms": "\(Self.milliseconds(delay))"]) { $1 })
        }
    }

    func didComplete(response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
        guard let error else { return logger.debug("request completed", metadata: metadata(of: response, error: nil, metrics: metrics)) }
        if Self.isRedirectNotFollowed(error) {
            logger.warning("request failed: redirect not followed", metadata: metadata(of: response, error: error, metrics: metrics))
        } else {
            logger.debug("request failed", metadata: metadata(of: response, error: error, metrics: metrics))
        }
    }

    /// The metadata of the completion: duration, attempts, redirects, body size, status, URL
    /// (secrets hidden) and error type. Built only when the logger takes the line (the
    /// `metadata:` of a `Logger` method is an autoclosure), as is every line's.
    private func metadata(of response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "duration_ms": "\(Self.milliseconds(metrics.duration))", "attempts": "\(metrics.attemptCount)",
            "redirects": "\(metrics.redirectCount)", "http.response.body.size": "\(metrics.countOfResponseBodyBytesReceived)",
        ]
        if let status = response?.statusCode { metadata["http.response.status_code"] = "\(status)" }
        if let url = response?.url { metadata["url.full"] = "\(redaction.url(url))" }
        if let error { metadata["error.type"] = "\(AttemptEnd.errorType(of: error))" }
        return metadata
    }

    /// The metadata of an attempt's end: method, URL (secrets hidden), resend count, status,
    /// error type and duration.
    private func metadata(of end: AttemptEnd) -> Logger.Metadata {
        var metadata = metadata(of: end.request)
        metadata["http.request.resend_count"] = "\(end.attempt.resendCount)"
        if let status = end.response?.statusCode { metadata["http.response.status_code"] = "\(status)" }
        if let errorType = end.errorType { metadata["error.type"] = "\(errorType)" }
        metadata["duration_ms"] = "\(Self.milliseconds(end.duration))"
        return metadata
    }

    /// Method and URL, secrets hidden.
    private func metadata(of request: URLRequest) -> Logger.Metadata {
        ["http.request.method": "\(request.httpMethod ?? "GET")", "url.full": "\(request.url.map(redaction.url) ?? "-")"]
    }

    /// Whether the task failed at a redirect it did not follow: refused by the origin rules,
    /// one that would have dropped the body, or one past the limit.
    private static func isRedirectNotFollowed(_ error: any Error) -> Bool {
        switch error {
        case SessionError.redirectRefused, SessionError.redirectWouldDropBody: true
        case let error as URLError: error.code == .httpTooManyRedirects
        default: false
        }
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f", seconds * 1000)
    }
}
#endif
