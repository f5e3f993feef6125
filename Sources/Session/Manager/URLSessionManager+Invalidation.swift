import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Ending the session, and the partial files of failed downloads the manager removes then.
extension URLSessionManager {
    /// Invalidates the session: cancelling its tasks (they complete with `URLError.cancelled`)
    /// or letting them finish. Partial files of failed downloads not resumed yet are removed
    /// (their resume data no longer works). Without `resetSession`, creating a task afterwards throws
    /// `SessionError.sessionInvalidated`; with it, the next task gets a new session.
    /// AFNetworking: `invalidateSessionCancelingTasks:resetSession:`.
    public func invalidateSession(cancelingTasks: Bool, resetSession: Bool = false) {
        let (session, managedTasks): (URLSession?, DispatchGroup) = creation.withLock { state in
            let session = state.session
            // Without a reset the invalidated session stays readable, as in AFNetworking.
            if resetSession { state.session = nil }
            state.acceptsTasks = resetSession
            return (session, state.managedTasks)
        }
        removeUnresumedPartialFiles()
        guard let session else { return }
        let invalidated = UncheckedSession(session: session)
        guard cancelingTasks else {
            // URLSession waits for its own tasks; the manager's own are waited for first.
            return managedTasks.notify(queue: .global()) { invalidated.session.finishTasksAndInvalidate() }
        }
        let delegates = table.all.filter { $0.session === session }
        // URLSession's own protocol cancels a task only once a read of its body returned.
        delegates.forEach { $0.bodyStream?.release(cancelling: true) }
        for delegate in delegates where delegate.task is ManagedDataTask { delegate.task.cancel() }
        guard delegates.contains(where: { $0.task is ManagedDataTask }) else { return session.invalidateAndCancel() }
        // The session's invalidation is reported after the manager's own tasks completed (their
        // cancellations run on the transport's queue), as after URLSession's.
        managedTasks.notify(queue: .global()) { invalidated.session.invalidateAndCancel() }
    }

    /// Keeps the partial file that `resumeData` (from a failed download's error) names beyond
    /// this manager: it is no longer removed on invalidation or when the manager is freed, so
    /// that another manager, or a later process, can resume from it; removing it becomes the
    /// caller's task. Throws `SessionError.invalidResumeData`. Beyond AFNetworking.
    public func keepPartialFile(ofResumeData resumeData: Data) throws {
        let resume = try ResumeData(decoding: resumeData)
        guard DownloadStaging().isInside(resume.partialFilePath) else {
            throw SessionError.invalidResumeData(reason: "its partial file is not in the private download directory")
        }
        stopRemoving(resume)
    }

    /// The partial file of `resume` is no longer the manager's to remove.
    func stopRemoving(_ resume: ResumeData) {
        _ = unresumedPartialFiles.withLock { $0.remove(URL(fileURLWithPath: resume.partialFilePath)) }
    }

    /// Keeps the partial file of a failed download whose error carries resume data, until it
    /// is resumed, the session invalidated or the manager freed.
    func keepUntilResumed(_ partialFile: URL) {
        _ = unresumedPartialFiles.withLock { $0.insert(partialFile) }
    }

    func removeUnresumedPartialFiles() {
        for file in unresumedPartialFiles.withLock({ files in defer { files = [] }; return files }) {
            try? FileManager.default.removeItem(at: file)
        }
    }
}

/// A session handed to the queue that invalidates it once the manager's own tasks completed.
private struct UncheckedSession: @unchecked Sendable {
    // @unchecked: URLSession is thread-safe (its state lives on its own work queue), but not
    // marked Sendable on Linux.
    let session: URLSession
}
