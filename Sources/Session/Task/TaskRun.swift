import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The lifecycle of a task as one state machine: made, starting (its first `resume` went to
/// make its transfer; a task its cache answers stays there until it completes), running on its
/// transfer, cancelling, completing (its completion took what it owned and decides its error),
/// completed. Each phase owns its data: until the task completes, `Live` (what only a running
/// task needs: its body, settings, failure, writer, cache state...), and, once made, the
/// transfer; a completed task only its error. Each event returns what the task
/// does next, which the owner carries out (`ManagedDataTask` hands it to its transfer under its
/// record's lock, so that the transfer gets the actions in the order of the events). An event
/// the phase cannot take is rejected with a `TransferStateError`: the owner traps in debug
/// builds and fails typed in release builds. Generic over what carries the task and what it owns while live, so
/// that it is tested without either.
struct TaskRun<Transfer, Live> {
    enum Phase {
        /// Made and not yet resumed.
        case created(Live)
        /// The first `resume` went to make the transfer (`suspended`: suspended meanwhile).
        case starting(Live, suspended: Bool)
        /// Its transfer runs, its body read or not (`suspended`).
        case running(Live, Transfer, suspended: Bool)
        /// A `cancel` came: the transfer ends the task, or without one the task ends itself.
        case cancelling(Live, Transfer?)
        /// The completion took `Live` and decides the error (`cancelled`: a `cancel` came first).
        case completing(Transfer?, cancelled: Bool)
        /// Completed, with the error (`nil` for success).
        case completed((any Error)?)
        /// Only while an event changes the phase (`take()`): `Live` is moved out and back, so
        /// that it is changed in place (a body appended to is not copied).
        case changing
    }

    private(set) var phase: Phase

    /// A run of a task made with `live`.
    init(_ live: Live) {
        phase = .created(live)
    }

    /// What callers see (`URLSessionTask.state`).
    var state: URLSessionTask.State {
        switch phase {
        case .created: .suspended
        case .starting(_, let suspended), .running(_, _, let suspended): suspended ? .suspended : .running
        case .cancelling, .completing(_, cancelled: true): .canceling
        case .completing: .running
        case .completed, .changing: .completed
        }
    }

    /// The error the task completed with; `nil` before it completed.
    var error: (any Error)? {
        if case .completed(let error) = phase { return error }
        return nil
    }

    var isCompleted: Bool {
        if case .completed = phase { return true }
        return false
    }

    /// Whether a `cancel` came before the task completed.
    var isCancelling: Bool {
        switch phase {
        case .cancelling, .completing(_, cancelled: true): true
        default: false
        }
    }

    /// Runs `body` with what the live task owns, changed in place; `nil` once it completed (an
    /// event that arrives after the end, which a race with a cancellation allows, changes
    /// nothing).
    mutating func live<Result>(_ body: (inout Live) -> Result) -> Result? {
        switch take() {
        case .created(var live):
            defer { phase = .created(live) }
            return body(&live)
        case .starting(var live, let suspended):
            defer { phase = .starting(live, suspended: suspended) }
            return body(&live)
        case .running(var live, let transfer, let suspended):
            defer { phase = .running(live, transfer, suspended: suspended) }
            return body(&live)
        case .cancelling(var live, let transfer):
            defer { phase = .cancelling(live, transfer) }
            return body(&live)
        case let ended:
            phase = ended
            return nil
        }
    }

    /// The phase, taken out (a move, with `.changing` left in its place) for the event to put
    /// back what follows: no field of `Live` is retained and released on the way, as copying
    /// it out of one phase into the next would (thousands of instructions a request).
    private mutating func take() -> Phase {
        var taken = Phase.changing
        swap(&taken, &phase)
        return taken
    }

    /// What a `resume` does.
    enum Resume {
        /// Nothing: the task is not suspended, or its transfer is being made.
        case nothing
        /// Make the transfer, then hand it over (`made(_:)`).
        case start
        /// Read the transfer's body again.
        case resumeReading(Transfer)
    }

    mutating func resume() -> Resume {
        switch take() {
        case .created(let live):
            phase = .starting(live, suspended: false)
            return .start
        case .starting(let live, _):
            phase = .starting(live, suspended: false)
            return .nothing
        case .running(let live, let transfer, let suspended):
            phase = .running(live, transfer, suspended: false)
            return suspended ? .resumeReading(transfer) : .nothing
        case let other:
            phase = other
            return .nothing
        }
    }

    /// What becomes of the transfer the first `resume` made.
    enum Made {
        /// Start it, paused when the task was suspended meanwhile.
        case start(suspended: Bool)
        /// Drop it: the task was cancelled meanwhile, and completed (or completes) without it.
        case drop
        /// No `resume` asked for it.
        case reject(TransferStateError)
    }

    mutating func made(_ transfer: Transfer) -> Made {
        switch take() {
        case .starting(let live, let suspended):
            phase = .running(live, transfer, suspended: suspended)
            return .start(suspended: suspended)
        case let other:
            phase = other
            switch other {
            case .cancelling, .completing, .completed: return .drop
            default: return .reject(rejection("made"))
            }
        }
    }

    /// Suspends a running task: returns the transfer whose reading stops, if it was made.
    mutating func suspend() -> Transfer? {
        switch take() {
        case .starting(let live, _):
            phase = .starting(live, suspended: true)
            return nil
        case .running(let live, let transfer, let suspended):
            phase = .running(live, transfer, suspended: true)
            return suspended ? nil : transfer
        case let other:
            phase = other
            return nil
        }
    }

    /// What a `cancel` does.
    enum Cancel {
        /// Nothing: the task is cancelling or completed.
        case nothing
        /// Cancel the transfer, which ends the task.
        case cancelTransfer(Transfer)
        /// No transfer runs that could end the task: the task completes itself.
        case complete
    }

    mutating func cancel() -> Cancel {
        switch take() {
        case .created(let live), .starting(let live, _):
            phase = .cancelling(live, nil)
            return .complete
        case .running(let live, let transfer, _):
            phase = .cancelling(live, transfer)
            return .cancelTransfer(transfer)
        case let other:
            phase = other
            return .nothing
        }
    }

    /// What the end of the task takes.
    enum End {
        /// What the live task owned, for its completion, which then decides the error
        /// (`complete(with:)`).
        case ended(Live)
        /// The task had ended: it completes once.
        case reject(TransferStateError)
    }

    /// The task ends: its completion takes what it owned; nothing runs it any more.
    mutating func end() -> End {
        switch take() {
        case .created(let live), .starting(let live, _):
            phase = .completing(nil, cancelled: false)
            return .ended(live)
        case .running(let live, let transfer, _):
            phase = .completing(transfer, cancelled: false)
            return .ended(live)
        case .cancelling(let live, let transfer):
            phase = .completing(transfer, cancelled: true)
            return .ended(live)
        case let other:
            phase = other
            return .reject(rejection("end"))
        }
    }

    /// What completing the task lets go of.
    enum Completion {
        /// The transfer, for the caller to release outside the record's lock (a transfer's
        /// teardown must not run under it).
        case completed(Transfer?)
        /// The task was not completing.
        case reject(TransferStateError)
    }

    /// The completion decided the task's `error` (`nil` for success).
    mutating func complete(with error: (any Error)?) -> Completion {
        guard case .completing(let transfer, _) = phase else { return .reject(rejection("complete")) }
        phase = .completed(error)
        return .completed(transfer)
    }

    private func rejection(_ event: String) -> TransferStateError {
        let name = switch phase {
        case .created: "created"
        case .starting: "starting"
        case .running: "running"
        case .cancelling: "cancelling"
        case .completing: "completing"
        case .completed: "completed"
        case .changing: "changing"
        }
        return TransferStateError(event: event, phase: name)
    }
}
