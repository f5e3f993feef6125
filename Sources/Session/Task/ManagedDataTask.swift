import AFLocking
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task the manager runs itself on its carrier (libcurl, or a stub), or that its cache
/// answers without the network on any transport: to every caller a `URLSessionDataTask`, but
/// resuming, suspending and cancelling it reach its transfer directly, with no URLSession task
/// layer between the manager and the transport (which cost four queue hops and 146,000
/// instructions a request, BENCHMARKS.md). What it shows and what runs it are in its record,
/// the one its `TaskDelegate` keeps too (`TaskDelegate.State`): one record per task, whose
/// `TaskRun` decides what each `resume`, `suspend` and `cancel` does. The base
/// class's own `resume`, `suspend` and `cancel` never run: they reach URLSession's protocol
/// machinery, and trap without a session.
///
/// Each action on the transfer (start, suspend, resume, cancel) is handed to its transport's
/// serial queue inside the critical section of the transition that decided it
/// (`CarriedTransfer`'s calls only enqueue, never wait), so the
/// transport carries the actions out in the order of the transitions. Were they handed over
/// after the lock, a `suspend` and a `resume` from two threads could reach the transfer the
/// other way round: the task showing `.running` with its transfer suspended, out of reach of
/// any later `resume` (which does nothing to a running task). Only the making of the
/// transfer is outside the lock, as it takes the lock itself.
final class ManagedDataTask: URLSessionDataTask, @unchecked Sendable {
    // @unchecked: every mutable field is in `record` (a `Locked`); the others are constants.

    private let identifier: Int
    private let request: URLRequest
    /// The upload's length when the request says it and the transfer has not yet.
    private let knownUploadLength: Int64?
    private let record: Locked<TaskDelegate.State>
    /// The task's delegate, which makes its transfer; set once when the delegate is made.
    let delegateReference = DelegateReference()

    /// A task of `request` numbered `identifier`, kept in `record` with its delegate; not
    /// running until `resume()`.
    init(identifier: Int, request: URLRequest, knownUploadLength: Int64?, record: Locked<TaskDelegate.State>) {
        self.identifier = identifier
        self.request = request
        self.knownUploadLength = knownUploadLength
        self.record = record
        super.init()
    }

    override var taskIdentifier: Int { identifier }
    override var originalRequest: URLRequest? { request }
    override var currentRequest: URLRequest? { record.withLock { $0.currentRequest } }
    override var error: (any Error)? { record.withLock { $0.run.error } }
    override var state: URLSessionTask.State { record.withLock { $0.run.state } }
    override var response: URLResponse? { record.withLock { $0.shown.response } }
    override var countOfBytesSent: Int64 { record.withLock { $0.shown.bytesSent } }
    override var countOfBytesExpectedToSend: Int64 { record.withLock { $0.shown.expectedToSend(knownUploadLength: knownUploadLength) } }
    override var countOfBytesReceived: Int64 { record.withLock { $0.shown.bytesReceived } }
    override var countOfBytesExpectedToReceive: Int64 { record.withLock { $0.shown.response?.expectedContentLength ?? -1 } }

    /// The task's download progress (its upload progress for an upload), whose cancelling,
    /// pausing and resuming act on the task, as the manager's `downloadProgress(for:)` gives it.
    override var progress: Progress {
        let (handedOut, completed) = record.withLock { ($0.progress, $0.run.isCompleted) }
        if let handedOut { return handedOut }
        guard !completed, let delegate = delegateReference.delegate else { return super.progress }
        let progress = delegate.kind == .upload ? delegate.uploadProgress : delegate.downloadProgress
        record.withLock { $0.progress = progress }
        return progress
    }

    /// Starts the transfer the first time; afterwards resumes reading a suspended one.
    override func resume() {
        let starts: Bool = record.withLock { state in
            switch state.run.resume() {
            case .nothing:
                return false
            case .resumeReading(let transfer):
                transfer.setSuspended(false)
                return false
            case .start:
                return true
            }
        }
        guard starts, let made = delegateReference.delegate?.makeTransfer() else { return }
        record.withLock { state in
            switch state.run.made(made) {
            case .start(let suspended):
                // Suspended meanwhile: started suspended.
                made.start(suspended: suspended)
            case .drop:
                // Cancelled meanwhile: the cancel found no transfer and completed the task itself.
                break
            case .reject(let error):
                TaskDelegate.rejected(error)
                made.cancel(with: error)
            }
        }
    }

    /// Stops reading the response's body until `resume()` (the request and the response's head
    /// go on; suspending twice needs one `resume()`).
    override func suspend() {
        record.withLock { state in
            state.run.suspend()?.setSuspended(true)
        }
    }

    /// Stops the transfer; the task completes with `URLError.cancelled`, unless it completed first.
    override func cancel() {
        let error = cancellation
        let completes: Bool = record.withLock { state in
            switch state.run.cancel() {
            case .nothing:
                return false
            case .cancelTransfer(let transfer):
                transfer.cancel(with: error)
                return false
            case .complete:
                return true
            }
        }
        // No transfer runs that could end it: it completes where its events happen, as every
        // task of the manager's own does, never on the caller's thread.
        if completes, let starter = delegateReference.delegate { starter.onEventQueue { starter.transferDidComplete(with: error) } }
    }

    /// The error of a cancelled task, `URLError.cancelled` with its URL.
    private var cancellation: URLError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "cancelled"]
        userInfo[NSURLErrorFailingURLErrorKey] = request.url
        return URLError(.cancelled, userInfo: userInfo)
    }

    /// The cancellation error when `cancel()` came before the task completed (its transfer may
    /// have ended meanwhile), else `nil`.
    var cancellationError: URLError? {
        record.withLock { $0.run.isCancelling } ? cancellation : nil
    }
}

/// A task's reference to its delegate, which is made after the task (it holds the task).
final class DelegateReference: @unchecked Sendable {
    // @unchecked: `delegate` is written once, by the manager under its creation lock before the
    // task is handed to anyone; Swift's weak references are atomic. Weak: the manager's table
    // keeps the delegate until the task completes, and the delegate holds the task.
    weak var delegate: TaskDelegate?
}
