/// Whether a transfer takes its response body's next chunk now: reading pauses while the task
/// is suspended or the consumer's window is full, and resumes when the window opens or the
/// task resumes. A value its `CurlTransfer` owns, kept on the transport's queue, unlike the
/// window's own flag, which the consumer clears from its thread before the transfer has
/// resumed. Pure, tested without a server.
struct ReceiveFlow {
    /// The task suspended the transfer, until it resumes.
    private var isSuspended = false
    /// Reading is paused (libcurl's write callback returned a pause, or a stub's playback
    /// stopped), until `readingResumed`.
    private(set) var isPaused = false

    /// A chunk of the body arrived: whether it is taken now; `false` pauses reading.
    /// `windowAdmits` is asked only of a transfer not suspended.
    mutating func admitsChunk(windowAdmits: @autoclosure () -> Bool) -> Bool {
        guard !isSuspended, windowAdmits() else {
            isPaused = true
            return false
        }
        return true
    }

    /// The task suspended the transfer: the next chunk pauses reading.
    mutating func suspend() {
        isSuspended = true
    }

    /// The task resumed: whether reading must resume now (it paused while suspended).
    mutating func taskResumed() -> Bool {
        guard isSuspended else { return false }
        isSuspended = false
        return isPaused
    }

    /// Reading resumed.
    mutating func readingResumed() {
        isPaused = false
    }
}
