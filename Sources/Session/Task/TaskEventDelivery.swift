/// Where a task's events are handled, decided from its manager's overrides when the task is
/// made (overrides are set before tasks start). An override runs on the delegate queue
/// (`operationQueue`), as URLSession calls it; the transport's queue never waits for it: it
/// hands the task's events over and goes on with every other transfer, while the task's own
/// transfer reads through its receive window, so that a slow override pauses that task alone
/// with at most the window's bytes waiting in memory.
enum TaskEventDelivery: Equatable {
    /// Where they happen (the transport's queue): no override hears of the task before it ends.
    case inline
    /// Where they happen, but the completion on the delegate queue: only overrides called at
    /// the end are set (`taskDidComplete`, `taskDidFinishCollectingMetrics`,
    /// `dataTaskWillCacheResponse`).
    case completionOnDelegateQueue
    /// Every event of the receiving side on the delegate queue, in order: an override hears of
    /// the response or the body, and what follows it must reach the task after it.
    case delegateQueue

    /// The delivery of a task of `kind` under `overrides`. The overrides of the sending side
    /// (a redirect's or a credential's decision, upload progress) run where the transfer sends,
    /// and do not count.
    init(overrides: SessionDelegateOverrides, kind: TaskDelegate.Kind) {
        let hearsBody = kind == .download ? overrides.downloadTaskDidWriteData != nil : overrides.dataTaskDidReceiveData != nil
        if hearsBody || overrides.dataTaskDidReceiveResponse != nil || overrides.downloadTaskDidResume != nil {
            self = .delegateQueue
        } else if overrides.taskDidComplete != nil || overrides.taskDidFinishCollectingMetrics != nil
            || overrides.dataTaskWillCacheResponse != nil {
            self = .completionOnDelegateQueue
        } else {
            self = .inline
        }
    }

    /// Whether the transfer reads through its receive window for the task: the task's body
    /// waits on the delegate queue, and the window bounds how much of it does.
    var readsThroughWindow: Bool { self == .delegateQueue }
}
