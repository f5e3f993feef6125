import AFLocking

/// How far a transfer may read ahead of the consumer of its body (a stream's, or a task whose
/// events wait on the delegate queue): when the network outruns the consumer, a queue of chunks
/// would hold the difference in memory. The transfer admits a chunk only while fewer than
/// `limit` bytes wait, and pauses reading otherwise; the consumer reports what it has
/// processed and resumes the transfer once half the window is free. Any driver's: it knows
/// nothing of what carries the bytes.
package final class ReceiveWindow: Sendable {
    private struct State {
        var outstanding = 0
        var paused = false
    }

    /// Bytes loaded but not yet consumed before reading pauses: 1 MiB, which keeps a 3 GB/s
    /// loopback download at full speed (measured: 8 MiB was no faster, and eight downloads at
    /// once grew the process by 158 MiB instead of 30 MiB).
    package static let defaultLimit = 1 << 20

    /// The bytes that may wait for the consumer.
    let limit: Int
    private let state = Locked(State())
    private let resume: @Sendable () -> Void

    /// A window of `limit` bytes; `resume` restarts reading and may be called on any thread.
    package init(limit: Int = ReceiveWindow.defaultLimit, resume: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.resume = resume
    }

    /// Whether the transfer may hand `count` more bytes to the task now; if not, it pauses
    /// and is resumed by `consumed(_:)`.
    package func admit(_ count: Int) -> Bool {
        state.withLock { state in
            guard state.outstanding < limit else {
                state.paused = true
                return false
            }
            state.outstanding += count
            return true
        }
    }

    /// The consumer processed `count` bytes of the body.
    package func consumed(_ count: Int) {
        let resumes: Bool = state.withLock { state in
            state.outstanding -= count
            guard state.paused, state.outstanding <= limit / 2 else { return false }
            state.paused = false
            return true
        }
        if resumes { resume() }
    }
}
