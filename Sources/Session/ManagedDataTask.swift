import AFLocking
import AFTransport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task the manager runs itself on its libcurl (or stubbed) transport, or that its cache
/// answers without the network on any transport: to every caller a `URLSessionDataTask`, but
/// resuming, suspending and cancelling it reach its transfer directly, with no URLSession task
/// layer between the manager and the transport (which cost four queue hops and 146,000
/// instructions a request, BENCHMARKS.md). Its `TaskDelegate`, in the manager's table, still
/// holds everything else about it. The base class's own
/// `resume`, `suspend` and `cancel` never run: they reach URLSession's protocol machinery, and
/// trap without a session.
final class ManagedDataTask: URLSessionDataTask, @unchecked Sendable {
    // @unchecked: every mutable field is in `record` (a `Locked`); the others are constants.

    /// What a caller can see of the task, and what runs it.
    private struct Record {
        var state = URLSessionTask.State.suspended
        var error: (any Error)?
        var currentRequest: URLRequest?
        /// Whether the first `resume` made the task's transfer (which `transfer` holds once made).
        var started = false
        /// The transfer, from `resume` until the task completed.
        var transfer: CurlTransfer?
        /// The task's delegate until it completed: what starts its transfer, and where its
        /// response and counts are read while it runs.
        var delegate: TaskDelegate?
        /// The response and counts when the task completed.
        var final = Figures()
        /// The `Progress` handed out as `progress`, kept after the task completed.
        var progress: Progress?
    }

    /// The response and the bytes sent and received, and expected either way (-1 while unknown).
    struct Figures {
        var response: HTTPURLResponse?
        var sent: Int64 = 0
        var expectedToSend: Int64 = -1
        var received: Int64 = 0
        var expectedToReceive: Int64 = -1
    }

    private let identifier: Int
    private let request: URLRequest
    private let record: Locked<Record>

    /// A task of `request` numbered `identifier`; not running until `resume()`.
    init(identifier: Int, request: URLRequest) {
        self.identifier = identifier
        self.request = request
        record = Locked(Record(currentRequest: request))
        super.init()
    }

    /// Ties the task to `delegate`, which starts its transfer on `resume()`; once, before the
    /// task is handed out.
    func attach(_ delegate: TaskDelegate) {
        record.withLock { $0.delegate = delegate }
    }

    override var taskIdentifier: Int { identifier }
    override var originalRequest: URLRequest? { request }
    override var currentRequest: URLRequest? { record.withLock { $0.currentRequest } }
    override var error: (any Error)? { record.withLock { $0.error } }
    override var state: URLSessionTask.State { record.withLock { $0.state } }
    override var response: URLResponse? { figures.response }
    override var countOfBytesSent: Int64 { figures.sent }
    override var countOfBytesExpectedToSend: Int64 { figures.expectedToSend }
    override var countOfBytesReceived: Int64 { figures.received }
    override var countOfBytesExpectedToReceive: Int64 { figures.expectedToReceive }

    /// The delegate's figures while the task runs, the final ones after.
    private var figures: Figures {
        let (delegate, final) = record.withLock { ($0.delegate, $0.final) }
        return delegate?.taskProgress ?? final
    }

    /// The task's download progress (its upload progress for an upload), whose cancelling,
    /// pausing and resuming act on the task, as the manager's `downloadProgress(for:)` gives it.
    override var progress: Progress {
        let (delegate, handedOut) = record.withLock { ($0.delegate, $0.progress) }
        if let handedOut { return handedOut }
        guard let delegate else { return super.progress }
        let progress = delegate.kind == .upload ? delegate.uploadProgress : delegate.downloadProgress
        record.withLock { $0.progress = progress }
        return progress
    }

    /// Starts the transfer the first time; afterwards resumes reading a suspended one.
    override func resume() {
        let (start, transfer): (TaskDelegate?, CurlTransfer?) = record.withLock { record in
            guard record.state == .suspended else { return (nil, nil) }
            record.state = .running
            if let transfer = record.transfer { return (nil, transfer) }
            // A transfer being made by an earlier `resume` starts running when it is stored.
            guard !record.started else { return (nil, nil) }
            record.started = true
            return (record.delegate, nil)
        }
        if let transfer { return transfer.transport.setSuspended(false, transfer) }
        guard let start, let made = start.makeTransfer() else { return }
        // Suspended meanwhile: started suspended. Cancelled meanwhile: the cancel found no
        // transfer and completed the task itself.
        let state = record.withLock { record in
            if record.state == .running || record.state == .suspended { record.transfer = made }
            return record.state
        }
        guard state == .running || state == .suspended else { return }
        made.transport.start(made)
        if state == .suspended { made.transport.setSuspended(true, made) }
    }

    /// Stops reading the response's body until `resume()` (the request and the response's head
    /// go on; suspending twice needs one `resume()`).
    override func suspend() {
        let transfer: CurlTransfer? = record.withLock { record in
            guard record.state == .running else { return nil }
            record.state = .suspended
            return record.transfer
        }
        transfer.map { $0.transport.setSuspended(true, $0) }
    }

    /// Stops the transfer; the task completes with `URLError.cancelled`, unless it completed first.
    override func cancel() {
        let (transfer, delegate): (CurlTransfer?, TaskDelegate?) = record.withLock { record in
            guard record.state == .running || record.state == .suspended else { return (nil, nil) }
            record.state = .canceling
            return (record.transfer, record.delegate)
        }
        let error = cancellation
        if let transfer {
            transfer.transport.cancel(transfer, with: error)
        } else if let delegate {
            // No transfer runs that could end it: it completes where its events happen, as
            // every task of the manager's own does, never on the caller's thread.
            delegate.onEventQueue { delegate.transferDidComplete(with: error) }
        }
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
        record.withLock { $0.state == .canceling } ? cancellation : nil
    }

    // MARK: Updates from the task's delegate

    /// A redirect is followed with `request`.
    func willSend(_ request: URLRequest) {
        record.withLock { $0.currentRequest = request }
    }

    /// The task completed with `error` (`nil` for success) and `final`.
    func didComplete(_ final: Figures, error: (any Error)?) {
        record.withLock { record in
            record.state = .completed
            record.error = error
            record.final = final
            record.transfer = nil
            record.delegate = nil
        }
    }
}
