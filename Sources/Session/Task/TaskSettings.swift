import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a task takes from its manager when it is made, as one value copied into its
/// `TaskDelegate`, with what the per-task setters change before it runs
/// (`setResponseLimits(_:for:)`, `setTotalTimeout(_:for:)`, `setClientIdentity(_:for:)`,
/// `setInterceptor(_:for:)`, `setSendsCredentialsAcrossOrigins(_:for:)`). Its transfer
/// snapshots it when it starts (`TransferOptions`); its redirects follow the rules it holds. A
/// later change to the manager reaches only tasks made after it.
struct TaskSettings {
    /// The manager's `responseLimits`, or the task's own.
    var limits: ResponseLimits
    /// The session configuration's `timeoutIntervalForResource`, or the task's own.
    var totalTimeout: TimeInterval?
    /// The task's own client identity, over the transport's; `nil` for the transport's.
    var clientIdentity: ClientIdentity?
    /// The manager's interceptor, chained with the task's own; `nil` for none.
    var interceptor: (any RequestInterceptor)?
    /// What its redirects may do: the manager's `redaction` and `sendsCredentialsAcrossOrigins`,
    /// or the task's own.
    var redirects: RedirectPolicy
}
