import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What carries a manager's transfers: a driver behind one boundary. The session layer names no
/// driver; it asks its carrier for a transfer, acts on the transfer through `CarriedTransfer`,
/// and hears of it through `TransferEvents`, on the carrier's serial queue.
package protocol TransferCarrier: AnyObject, Sendable {
    /// A transfer of `request` for the task whose side is `events` (held weakly), asking
    /// `options` of it; it does nothing until started.
    func makeTransfer(of request: URLRequest, for events: any TransferEvents, options: TransferOptions) -> any CarriedTransfer
    /// Runs `body` on the queue where the carrier's transfers tell their tasks everything, after
    /// what is queued there; from any thread, without waiting.
    func async(_ body: @escaping @Sendable () -> Void)
    /// What the carrier sets on its connections (a stored response is found by its socket and
    /// client identity).
    var connection: ConnectionSettings { get }
    /// The route its requests take (`RouteFingerprint`), for the cache's key; `nil` for none.
    var routeFingerprint: String? { get }
}

/// One transfer, as its task acts on it. Each call only hands the action to the carrier's
/// queue and never waits, so that a task may call it under its record's lock: the carrier then
/// carries the actions out in the order the task decided them.
package protocol CarriedTransfer: AnyObject, Sendable {
    /// Starts the transfer; with `suspended`, its response's body is not read until
    /// `setSuspended(false)`.
    func start(suspended: Bool)
    /// Stops or resumes reading the response's body (the request and the head go on).
    func setSuspended(_ suspended: Bool)
    /// Stops the transfer and ends its task with `error` (a cancellation) unless it had ended.
    func cancel(with error: any Error & Sendable)
}
