import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Retries what is safe to retry: a limited number of times, after an exponential backoff with
/// full jitter or the wait a `Retry-After` header asks for, only idempotent requests unless
/// told otherwise, and within a manager-wide `RetryBudget`.
///
/// Retried by default: cannot connect, timed out, DNS lookup failed, not connected, a
/// connection lost before any byte of a response or where the body can continue with a range
/// request (`RetryContext.canContinue`), and the statuses 408, 429, 500, 502, 503
/// and 504. A pooled connection that the server had closed (lost before any response byte,
/// on a reused connection) is retried at once for any method, outside the budget: the request
/// never reached the server. A body that cannot be sent again (a one-shot `InputStream`)
/// fails a retryable transport failure with `RetryError.bodyCannotBeReplayed`.
/// Beyond AFNetworking (Alamofire's `RetryPolicy`, which ignores `Retry-After`).
public struct RetryPolicy: RequestInterceptor {
    /// Retries after the first attempt. Default 2.
    public var maximumRetries: Int
    /// The backoff bound of the first retry, doubled for each further one. Default 0.2 s.
    public var backoffBase: TimeInterval
    /// The largest backoff bound. Default 10 s.
    public var backoffCap: TimeInterval
    /// The longest `Retry-After` wait honoured; a response asking for longer is not retried.
    /// Default 60 s.
    public var maximumRetryAfter: TimeInterval
    /// How long after the task was created a retry may still start; `nil`, the default, for no
    /// limit (the task's total timeout, if any, still applies).
    public var maximumElapsedTime: TimeInterval?
    /// Methods retried by default: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
    public var idempotentMethods: Set<String>
    /// Whether other methods (POST, PATCH) are retried too. Default `false`: only when the
    /// request carries an `Idempotency-Key` header.
    public var retriesNonIdempotentRequests: Bool
    /// Response statuses retried. Default 408, 429, 500, 502, 503, 504.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures retried (`networkConnectionLost` only before any response byte, or
    /// when the body can continue).
    public var retryableErrorCodes: Set<URLError.Code>
    /// Shared by every task of the policy; `nil` for no budget. Default `RetryBudget()`.
    public var budget: RetryBudget?
    /// The wait before a retry, given the backoff bound: by default a uniformly random share of
    /// it ("full jitter"). Tests may make it exact.
    public var jitter: @Sendable (TimeInterval) -> TimeInterval

    /// A policy; every parameter has the default documented on its property.
    public init(
        maximumRetries: Int = 2, backoffBase: TimeInterval = 0.2, backoffCap: TimeInterval = 10,
        maximumRetryAfter: TimeInterval = 60, maximumElapsedTime: TimeInterval? = nil,
        idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"],
        retriesNonIdempotentRequests: Bool = false, retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableErrorCodes: Set<URLError.Code> = [.cannotConnectToHost, .timedOut, .dnsLookupFailed, .notConnectedToInternet, .networkConnectionLost],
        budget: RetryBudget? = RetryBudget(), jitter: @escaping @Sendable (TimeInterval) -> TimeInterval = { .random(in: 0...$0) }
    ) {
        self.maximumRetries = maximumRetries
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
        self.maximumRetryAfter = maximumRetryAfter
        self.maximumElapsedTime = maximumElapsedTime
        self.idempotentMethods = idempotentMethods
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
        self.budget = budget
        self.jitter = jitter
    }

    /// Counts each task's first attempt in the budget.
    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        if attempt == 1 { budget?.recordRequest() }
        return request
    }

    /// The policy's decision; takes a retry from the budget when it retries.
    public func retry(_ context: RetryContext) async -> RetryDecision {
        if isStalePooledConnection(context) { return context.attempt <= maximumRetries ? .retry : .doNotRetry }
        guard let delay = delay(for: context, now: Date()) else { return .doNotRetry }
        guard context.canReplayBody else {
            guard let error = context.error else { return .doNotRetry }
            return .fail(RetryError.bodyCannotBeReplayed(underlying: error))
        }
        guard budget?.withdrawRetry() ?? true else { return .doNotRetry }
        return delay > 0 ? .retryAfter(delay) : .retry
    }

    /// The wait before retrying `context`'s request, or `nil` when the policy does not retry
    /// it. Pure apart from `jitter`: tested without a server.
    public func delay(for context: RetryContext, now: Date) -> TimeInterval? {
        guard context.attempt <= maximumRetries, isRetryable(context.request), isRetryableFailure(context) else { return nil }
        let wait: TimeInterval
        if let header = context.response?.value(forHTTPHeaderField: "Retry-After"), let asked = RetryAfter.delay(from: header, now: now) {
            guard asked <= maximumRetryAfter else { return nil }
            wait = asked
        } else {
            wait = jitter(backoffBound(retry: context.attempt))
        }
        if let maximumElapsedTime, context.elapsed + wait > maximumElapsedTime { return nil }
        return wait
    }

    /// The backoff bound before retry `retry` (1 for the first): `backoffBase` doubled
    /// `retry - 1` times, at most `backoffCap`.
    public func backoffBound(retry: Int) -> TimeInterval {
        min(backoffCap, backoffBase * pow(2, Double(max(0, retry - 1))))
    }

    /// Whether the method is idempotent, or the caller said retrying it is safe.
    private func isRetryable(_ request: URLRequest) -> Bool {
        retriesNonIdempotentRequests || idempotentMethods.contains(request.httpMethod?.uppercased() ?? "GET")
            || request.value(forHTTPHeaderField: "Idempotency-Key") != nil
    }

    private func isRetryableFailure(_ context: RetryContext) -> Bool {
        if let response = context.response { return retryableStatusCodes.contains(response.statusCode) }
        guard let code = context.urlErrorCode, retryableErrorCodes.contains(code) else { return false }
        return code != .networkConnectionLost || !context.receivedResponseBytes || context.canContinue
    }

    private func isStalePooledConnection(_ context: RetryContext) -> Bool {
        context.urlErrorCode == .networkConnectionLost && !context.receivedResponseBytes && context.isReusedConnection
            && context.canReplayBody && retryableErrorCodes.contains(.networkConnectionLost)
    }
}
