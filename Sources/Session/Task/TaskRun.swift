import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The lifecycle of a task the manager runs itself (`ManagedDataTask`), as its callers see it:
/// suspended until resumed, running (or suspended again), cancelling, completed. Each event
/// returns what the task does next; the task hands it to its transfer's transport under its
/// record's lock, so that the transport gets the actions in the order of the events. A value
/// in the task's record (`TaskDelegate.State`), generic over what starts the task (its
/// delegate) and what carries it (its transfer), so that it is tested without either.
struct TaskRun<Starter: AnyObject, Transfer> {
    /// What callers see (`URLSessionTask.state`).
    private(set) var phase = URLSessionTask.State.suspended
    /// The error the task completed with.
    private(set) var error: (any Error)?
    /// The request the task sends now: its own, a validation's, a redirect's.
    var currentRequest: URLRequest?
    /// The `Progress` the task handed out as `progress`, kept after it completed.
    var progress: Progress?
    /// What starts the task, until it completed.
    private(set) var starter: Starter?
    /// The transfer, from when the first `resume` made it until the task completed.
    private(set) var transfer: Transfer?
    /// Whether the first `resume` went to make the transfer.
    private var started = false

    /// A run of a task sending `request`, started by `starter` when first resumed.
    init(request: URLRequest?, starter: Starter?) {
        currentRequest = request
        self.starter = starter
    }

    /// What a `resume` does.
    enum Resume {
        /// Nothing: the task is not suspended, or its transfer is being made.
        case nothing
        /// Make the transfer with the starter, then hand it over (`made(_:)`).
        case start(Starter)
        /// Read the transfer's body again.
        case resumeReading(Transfer)
    }

    mutating func resume() -> Resume {
        guard phase == .suspended else { return .nothing }
        phase = .running
        if let transfer { return .resumeReading(transfer) }
        guard !started, let starter else { return .nothing }
        started = true
        return .start(starter)
    }

    /// What becomes of the transfer the first `resume` made.
    enum Made: Equatable {
        /// Start it, paused when the task was suspended meanwhile.
        case start(suspended: Bool)
        /// Drop it: the task was cancelled meanwhile, and completed without it.
        case drop
    }

    mutating func made(_ transfer: Transfer) -> Made {
        guard phase == .running || phase == .suspended else { return .drop }
        self.transfer = transfer
        return .start(suspended: phase == .suspended)
    }

    /// Suspends a running task: returns the transfer whose reading stops, if it was made.
    mutating func suspend() -> Transfer? {
        guard phase == .running else { return nil }
        phase = .suspended
        return transfer
    }

    /// What a `cancel` does.
    enum Cancel {
        /// Nothing: the task is cancelling or completed.
        case nothing
        /// Cancel the transfer, which ends the task.
        case cancelTransfer(Transfer)
        /// No transfer runs that could end the task: complete it with the starter.
        case complete(Starter)
    }

    mutating func cancel() -> Cancel {
        guard phase == .running || phase == .suspended else { return .nothing }
        phase = .canceling
        if let transfer { return .cancelTransfer(transfer) }
        return starter.map(Cancel.complete) ?? .nothing
    }

    /// Whether a `cancel` came before the task completed.
    var isCancelling: Bool { phase == .canceling }

    /// The task completed with `error` (`nil` for success): nothing runs it any more. Returns
    /// the transfer and starter it let go of, for the caller to release outside the record's
    /// lock (a transfer's teardown must not run under it).
    mutating func end(with error: (any Error)?) -> (Transfer?, Starter?) {
        defer { (transfer, starter) = (nil, nil) }
        phase = .completed
        self.error = error
        return (transfer, starter)
    }
}
