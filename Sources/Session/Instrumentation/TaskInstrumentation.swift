import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Instrumentation that sees each task from its caller's side, for logging, metrics and
/// tracing: it is asked for a `TaskObserver` when a task is made, synchronously on the calling
/// thread (in an `async` API, on the calling Swift task, so that task-locals such as
/// `ServiceContext.current` can be captured), and that observer then hears each attempt and
/// the completion. Set it with `URLSessionManager.instrumentation` (default none: a task then
/// costs one `nil` check); `InstrumentationList` combines several. `EventMonitor`s keep
/// hearing their events beside it. Beyond AFNetworking.
public protocol TaskInstrumentation: Sendable {
    /// The observer of the task about to be made for `request` (as the caller gave it, before
    /// the manager adds its headers and cookies), or `nil` to leave that task alone. Called on
    /// the caller's thread and Swift task, before the manager takes its lock; when the task then
    /// cannot be made (an invalidated session, an invalid request) the observer hears nothing
    /// more, so it should hold nothing that needs an end until `willSend(_:attempt:)`.
    func observer(for request: URLRequest) -> (any TaskObserver)?
}
