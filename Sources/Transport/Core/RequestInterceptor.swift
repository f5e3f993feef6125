import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Takes part in every attempt of a task: *adapts* the request before each attempt is sent
/// (adds a token, signs it) and decides whether a failed attempt is *retried*. Set one on a
/// manager (`URLSessionManager.interceptor`) or on a task (`setInterceptor(_:for:)`);
/// `InterceptorChain` composes several. Retries stay one task to the caller: one completion,
/// progress that never runs backwards, every attempt in `TaskMetrics.transactionMetrics`.
///
/// Both methods run on Swift's concurrency pool and may suspend; a cancelled task stops
/// waiting for them. Interceptors run on the libcurl transport, which a manager on
/// `.urlSession` then uses. Beyond AFNetworking (Alamofire's `RequestInterceptor`).
public protocol RequestInterceptor: Sendable {
    /// The request to send as attempt `attempt` (1 for the first). Throwing completes the task
    /// with the error thrown. Default: `request` unchanged.
    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest

    /// Whether the failed attempt that `context` describes is retried. Asked after a transport
    /// failure before any response reached the task, and after a response with a status of 400
    /// or more (held back, with up to `RetryContext.maximumHeldBodyLength` bytes of its body,
    /// until this answers). A retry of a request whose body cannot be sent again
    /// (`RetryContext.canReplayBody` `false`) fails the task with
    /// `RetryError.bodyCannotBeReplayed` instead of sending it. Default: `.doNotRetry`.
    func retry(_ context: RetryContext) async -> RetryDecision
}

extension RequestInterceptor {
    /// Sends `request` unchanged.
    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest { request }

    /// Never retries.
    public func retry(_ context: RetryContext) async -> RetryDecision { .doNotRetry }
}
