import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Several interceptors as one: each adapts the request in order, and the first that decides
/// anything but `.doNotRetry` decides the retry. The manager puts its own interceptor before
/// a task's. Beyond AFNetworking (Alamofire's `Interceptor`).
public struct InterceptorChain: RequestInterceptor {
    /// The interceptors, in order.
    public let interceptors: [any RequestInterceptor]

    /// A chain of `interceptors`, in order.
    public init(_ interceptors: [any RequestInterceptor]) {
        self.interceptors = interceptors
    }

    /// `request` adapted by each interceptor in turn.
    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        var request = request
        for interceptor in interceptors { request = try await interceptor.adapt(request, attempt: attempt) }
        return request
    }

    /// The first decision other than `.doNotRetry`.
    public func retry(_ context: RetryContext) async -> RetryDecision {
        for interceptor in interceptors {
            let decision = await interceptor.retry(context)
            if case .doNotRetry = decision { continue }
            return decision
        }
        return .doNotRetry
    }
}
