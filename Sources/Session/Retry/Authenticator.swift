import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adds a credential (a bearer token, a signature) to every attempt, and refreshes it once
/// for all the requests it failed: when an attempt is refused (401 by default), the first
/// such request starts the refresh and every other one waits for it; all are retried with the
/// new credential, or fail with the refresh's error. A request is never sent with a credential
/// known to be stale: attempts adapted while a refresh runs wait for it, and after a failed
/// refresh the next attempt refreshes again. A request refused twice with credentials it was
/// just given is not retried again. Beyond AFNetworking (Alamofire's
/// `AuthenticationInterceptor`, whose refresh races under concurrency).
public final class Authenticator<Credential: Sendable>: RequestInterceptor {
    /// Puts `credential` on `request`.
    public typealias Apply = @Sendable (_ credential: Credential, _ request: inout URLRequest) -> Void
    /// Makes a new credential; given the stale one, if any.
    public typealias Refresh = @Sendable (_ stale: Credential?) async throws -> Credential

    private struct State {
        var credential: Credential?
        /// Whether `credential` was refused (or a refresh failed): the next attempt refreshes.
        var isStale = false
        var refreshing: Task<Credential, any Error>?
        var refreshCount = 0
    }

    private let apply: Apply
    private let refresh: Refresh
    private let isAuthenticationFailure: @Sendable (HTTPURLResponse) -> Bool
    private let needsRefresh: @Sendable (Credential) -> Bool
    private let state: Locked<State>

    /// An authenticator starting with `credential` (`nil`: the first attempt refreshes).
    /// `isAuthenticationFailure` tells a refused credential (default: status 401);
    /// `needsRefresh` tells one known to have expired before it is sent (default: never).
    public init(
        credential: Credential?, apply: @escaping Apply, refresh: @escaping Refresh,
        isAuthenticationFailure: @escaping @Sendable (HTTPURLResponse) -> Bool = { $0.statusCode == 401 },
        needsRefresh: @escaping @Sendable (Credential) -> Bool = { _ in false }
    ) {
        self.apply = apply
        self.refresh = refresh
        self.isAuthenticationFailure = isAuthenticationFailure
        self.needsRefresh = needsRefresh
        state = Locked(State(credential: credential))
    }

    /// The current credential.
    public var credential: Credential? { state.withLock { $0.credential } }

    /// How many refreshes have started.
    public var refreshCount: Int { state.withLock { $0.refreshCount } }

    /// `request` with the current credential, refreshed first when it is missing, stale or
    /// expired, or being refreshed. Throws the refresh's error.
    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
        let credential = try await usableCredential()
        var request = request
        apply(credential, &request)
        return request
    }

    /// `.retry` after a refresh when the attempt was refused with the current credential, at
    /// once when a newer one exists; `.fail` with the refresh's error. Only a refusal of the task's
    /// first attempt is retried: a request refused at its second attempt too is refused even
    /// with a fresh credential, and another refresh would not change that.
    public func retry(_ context: RetryContext) async -> RetryDecision {
        guard let response = context.response, isAuthenticationFailure(response), context.attempt == 1 else { return .doNotRetry }
        state.withLock { state in
            guard let credential = state.credential else { return }
            var current = context.request
            apply(credential, &current)
            // Refused with the credential still current: it is stale, and the next use refreshes.
            if current.allHTTPHeaderFields == context.request.allHTTPHeaderFields, current.url == context.request.url {
                state.isStale = true
            }
        }
        do {
            _ = try await usableCredential()
            return .retry
        } catch {
            return .fail(error)
        }
    }

    /// What a caller needing the credential does: use it, or wait for a refresh.
    private enum Next {
        case use(Credential)
        case wait(Task<Credential, any Error>)
    }

    /// The credential to send, after the one refresh that every caller shares when needed.
    private func usableCredential() async throws -> Credential {
        let next: Next = state.withLock { state in
            if let task = state.refreshing { return .wait(task) }
            if let credential = state.credential, !state.isStale, !needsRefresh(credential) { return .use(credential) }
            let stale = state.credential
            state.refreshCount += 1
            // Made under the lock, so the refresh cannot finish before it is recorded.
            let task = Task { [refresh, weak self] in
                do {
                    let fresh = try await refresh(stale)
                    self?.state.withLock { state in
                        state.credential = fresh
                        state.isStale = false
                        state.refreshing = nil
                    }
                    return fresh
                } catch {
                    self?.state.withLock { state in
                        state.isStale = true
                        state.refreshing = nil
                    }
                    throw error
                }
            }
            state.refreshing = task
            return .wait(task)
        }
        switch next {
        case .use(let credential): return credential
        case .wait(let task): return try await task.value
        }
    }
}
