import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transfer, or a task's run, received an event its phase cannot receive: a defect of this
/// library, never of the server, the caller or the interceptors, whose events the transfer and
/// the task sequence themselves (a late event after the end, which a cancellation can race, is
/// not one and does nothing).
/// Debug builds stop at the defect (an assertion); release builds fail the task with this
/// error, so that it still completes exactly once. No AFNetworking counterpart (URLSession's
/// task layer carried AFNetworking's transfers).
public struct TransferStateError: Error, Sendable, Equatable {
    /// The event, named after the state machine's method (`hopFinished`, `decided`, ...).
    public let event: String
    /// The phase it reached: a transfer's (`initialized`, `adapting`, `running`, `deciding`,
    /// `waitingToRetry`) or a task's (`created`, `starting`, `running`, `cancelling`,
    /// `completed`).
    public let phase: String

    /// The error for `event` reaching `phase`.
    public init(event: String, phase: String) {
        self.event = event
        self.phase = phase
    }
}

extension TransferStateError: CustomNSError, LocalizedError {
    /// `NSURLErrorDomain`, where URLSession's own errors live.
    public static var errorDomain: String { NSURLErrorDomain }

    /// -1 (`NSURLErrorUnknown`): the transfer cannot say what went wrong on the wire.
    public var errorCode: Int { URLError.unknown.rawValue }

    /// A one-line description naming the event and the phase.
    public var errorDescription: String? {
        "The transfer failed on an internal defect: the event \(event) reached the phase \(phase), which cannot receive it."
    }
}
