import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The upload and download `Progress` of a task, and their delivery to its progress handlers.
extension TaskDelegate {
    /// The upload's progress, made on first use. AFNetworking: `uploadProgressForTask:`.
    var uploadProgress: Progress { progress(.upload) }

    /// The download's progress, made on first use. AFNetworking: `downloadProgressForTask:`.
    var downloadProgress: Progress { progress(.download) }

    /// Bytes done and expected (-1 unknown) in `direction`, without making a `Progress`.
    func counts(_ direction: Direction) -> (completed: Int64, total: Int64) {
        let counts = state.withLock { $0[keyPath: Self.progressCounts(direction)] }
        return (counts.completed, counts.total)
    }

    private static func progressCounts(_ direction: Direction) -> WritableKeyPath<State, ProgressCounts> {
        direction == .upload ? \.shown.upload : \.shown.download
    }

    /// The `Progress` of `direction`, made with the counts so far when first asked for; it
    /// cancels, suspends and resumes the task.
    private func progress(_ direction: Direction) -> Progress {
        let path = Self.progressCounts(direction)
        return state.withLock { state in
            let counts = state[keyPath: path]
            if let object = counts.object { return object }
            // No parent, as AFNetworking makes them (a `Progress.current` would otherwise adopt it).
            let progress = Progress(parent: nil, userInfo: nil)
            progress.totalUnitCount = counts.total
            progress.completedUnitCount = counts.completed
            progress.isCancellable = true
            progress.isPausable = true
            progress.cancellationHandler = { [weak task] in task?.cancel() }
            progress.pausingHandler = { [weak task] in task?.suspend() }
            progress.resumingHandler = { [weak task] in task?.resume() }
            state[keyPath: path].object = progress
            return progress
        }
    }

    /// Queues one call of `handler` unless one is already queued: a slow handler sees fewer,
    /// fresher updates instead of a backlog that grows with the body.
    func deliver(handler: URLSessionManager.ProgressHandler?, direction: Direction) {
        guard let handler else { return }
        guard state.withLock({ $0.pendingDeliveries.insert(direction).inserted }) else { return }
        let progress = progress(direction)
        deliveryQueue.async { [self] in
            state.withLock { _ = $0.pendingDeliveries.remove(direction) }
            handler(progress)
        }
    }
}
