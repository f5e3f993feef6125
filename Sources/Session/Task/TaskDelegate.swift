import AFLocking
import AFSecurity
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything about one task: its body (accumulated, or written to a file for downloads), its
/// upload and download `Progress`, its handlers, its metrics, and the Linux failures the
/// manager turns into typed errors. Its events come from the libcurl transport's queue
/// (`TransferEvents`, handed to the delegate queue where an override hears of them:
/// `TaskEventDelivery`) or, for a task of URLSession's own protocol, from the manager's delegate
/// methods on the serial delegate queue; handlers run on the task's delivery queue.
final class TaskDelegate: @unchecked Sendable {
    // @unchecked: every mutable field is in `state` (a `Locked`), the `Progress` objects too;
    // the other stored properties are immutable, and `Progress` synchronizes itself.

    enum Direction: Hashable, Sendable {
        case upload
        case download
    }

    enum Kind: Equatable {
        case data
        case upload
        case download
    }

    /// The handlers given when the task was created.
    struct Handlers {
        var uploadProgress: URLSessionManager.ProgressHandler?
        var downloadProgress: URLSessionManager.ProgressHandler?
        var completion: URLSessionManager.TaskCompletion?
        var destination: URLSessionManager.DownloadDestination?
        var downloadOptions: DownloadOptions = []
        /// Where a streamed task's response and body go, instead of memory or a file.
        var bodyChannel: ResponseBodyChannel?
    }

    /// Why the manager fails a task whatever URLSession reports; the first one wins.
    enum Failure {
        /// A challenge was refused for want of a usable credential.
        case authenticationRequired
        /// A 307/308 redirect that would have dropped the body was not followed.
        case redirectStopped(HTTPURLResponse)
        /// The download's file could not be written (or the request body stream failed).
        case failed(any Error)

        /// The error the task completes with, given its final `response`.
        func error(response: HTTPURLResponse?) -> any Error {
            switch self {
            case .authenticationRequired: return SessionError.authenticationRequired(response: response)
            case .redirectStopped(let redirect): return SessionError.redirectWouldDropBody(response: redirect)
            case .failed(let error): return error
            }
        }
    }

    let task: URLSessionTask
    let kind: Kind
    let session: URLSession
    /// What carries the task's transfers (`TransferCarrier`); `nil` for URLSession's own protocol.
    let carrier: (any TransferCarrier)?
    /// The manager, while it lives (it does while it has tasks: `TaskDelegateTable`).
    private let managerReference: WeakManager
    let responseSerializer: any URLResponseSerialization
    let credential: URLCredential?
    /// The manager's `responseCache` (`TaskDelegate+Caching`), as when the task was made;
    /// `nil` for none.
    let cache: ResponseCache?
    let bodyStream: UploadBodyStream?
    /// The upload's length when URLSession cannot know it (stream bodies).
    let knownUploadLength: Int64?
    let taskStart = Date()
    /// The manager's event monitors when the task was created.
    let monitors: [any EventMonitor]
    /// The task's observer, when the manager had instrumentation as the task was made.
    let observed: ObservedTask?
    /// Whether an override takes the body's chunks (`dataTaskDidReceiveData`, or for a
    /// download `downloadTaskDidWriteData`) that reach the task as transfer events (from the
    /// libcurl transport, or the cache's answers on either transport), as set when the task
    /// was made: otherwise no chunk is reported (or copied) beyond the task's own use.
    let reportsBody: Bool
    /// Where the task's events are handled, from the manager's overrides when the task was made.
    let delivery: TaskEventDelivery
    /// The task's events waiting for the delegate queue, unless they are all handled inline.
    let eventQueue: TaskEventQueue?
    /// The manager's own tasks of the task's session, which this one (a `ManagedDataTask`)
    /// leaves when it completes; `nil` for a task of URLSession's own protocol.
    let sessionTasks: DispatchGroup?
    let handlers: Handlers
    /// Serial, so that progress reaches the handlers in order and before the completion;
    /// it targets the manager's completion queue, or its processing queue when there is none.
    let deliveryQueue: DispatchQueue
    let hasCompletionQueue: Bool
    /// The manager's `completionGroup` when the task was created, like its completion queue.
    let completionGroup: DispatchGroup
    let state: Locked<State>

    init(
        task: URLSessionTask, kind: Kind, responseSerializer: any URLResponseSerialization, credential: URLCredential?,
        bodyStream: UploadBodyStream?, knownUploadLength: Int64?, handlers: Handlers,
        session: URLSession, manager: URLSessionManager, carrier: (any TransferCarrier)?, completionQueue: DispatchQueue?, completionGroup: DispatchGroup,
        processingQueue: DispatchQueue, state: Locked<State>, cache: ResponseCache?, monitors: [any EventMonitor], reportsBody: Bool,
        delivery: TaskEventDelivery, sessionTasks: DispatchGroup?, observed: ObservedTask?
    ) {
        self.task = task
        self.kind = kind
        self.session = session
        self.carrier = carrier
        managerReference = WeakManager(manager: manager)
        self.responseSerializer = responseSerializer
        self.credential = credential
        self.cache = cache
        self.bodyStream = bodyStream
        self.knownUploadLength = knownUploadLength
        self.handlers = handlers
        deliveryQueue = DispatchQueue(label: "AFNetworking.task", target: completionQueue ?? processingQueue)
        hasCompletionQueue = completionQueue != nil
        self.completionGroup = completionGroup
        self.monitors = monitors
        self.observed = observed
        self.reportsBody = reportsBody
        self.delivery = delivery
        eventQueue = delivery == .inline ? nil : TaskEventQueue(queue: manager.operationQueue)
        self.sessionTasks = sessionTasks
        self.state = state
    }

    var manager: URLSessionManager? { managerReference.manager }

    /// The transfer that carries the task, with what the task asks of it now; `nil` when its
    /// manager's cache answers it without the network (where its events happen), and for a
    /// task of URLSession's own protocol, which is made with the transfer it asks for unless
    /// the cache answers it.
    func makeTransfer() -> (any CarriedTransfer)? {
        guard let request = task.originalRequest else { return nil }
        guard let carrier else {
            // A task of URLSession's own protocol that its cache answers, decided when it was made.
            if let step = live({ live, _ in live.cacheAnswer }) ?? nil { _ = carryOut(step) }
            return nil
        }
        guard let settings, let sent = requestAfterCache(request, settings: settings) else { return nil }
        // The task shows what it sends, a validation's validators included (`curlCommand`).
        // Not `sent != request`: corelibs' `URLRequest` equality ignores header fields.
        if cache != nil { state.withLock { $0.currentRequest = sent } }
        return carrier.makeTransfer(of: sent, for: self, options: transferOptions(settings))
    }

    /// Runs `body` where the task's events happen: on its carrier's queue, or for a task of
    /// URLSession's own protocol on the delegate queue, where URLSession calls the manager.
    func onEventQueue(_ body: @escaping @Sendable () -> Void) {
        if let carrier {
            carrier.async(body)
        } else {
            manager?.operationQueue.addOperation(body)
        }
    }

    // MARK: Events, on the transport's or the delegate queue

    func didSendBodyData(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        let total = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : knownUploadLength ?? -1
        state.withLock { state in
            state.shown.bytesSent = totalBytesSent
            state.shown.upload.set(completed: totalBytesSent, total: total)
        }
        deliver(handler: handlers.uploadProgress, direction: .upload)
    }

    /// Counts a redirect; returns how many the task's current attempt has met.
    func didRedirect() -> Int {
        live { live, _ in
            live.redirectCount += 1
            live.attemptRedirectCount += 1
            return live.attemptRedirectCount
        } ?? 0
    }

    /// A new attempt starts with no redirect counted.
    func restartRedirectCount() {
        live { live, _ in live.attemptRedirectCount = 0 }
    }

    /// A redirect past the manager's limit was not followed.
    func didStopRedirects(after response: HTTPURLResponse) {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "More than \(RedirectPolicy.maximumRedirects) redirects."]
        userInfo[NSURLErrorFailingURLErrorKey] = response.url
        let error = URLError(.httpTooManyRedirects, userInfo: userInfo)
        live { live, _ in
            live.redirectCount -= 1
            live.attemptRedirectCount -= 1
            live.record(.failed(error))
            live.endedAtRedirect = true
        }
    }

    /// A 307/308 redirect that URLSession would follow with an empty body was stopped.
    func didStopRedirect(_ response: HTTPURLResponse) {
        live { live, _ in live.record(.redirectStopped(response)) }
    }

    /// A redirect the origin rules refuse was not followed.
    func didRefuseRedirect(_ response: HTTPURLResponse, _ refusal: RedirectPolicy.Refusal) {
        let reason = switch refusal {
        case .intoUnixSocket: "a redirect from \(response.url?.scheme ?? "a network") URL into a Unix domain socket is never followed"
        }
        live { live, _ in
            live.record(.failed(SessionError.redirectRefused(reason: reason, response: response)))
            live.endedAtRedirect = true
        }
    }

    /// Whether the task failed at a redirect it did not follow (too many, or refused): that
    /// redirect's response is not handed on as the task's response.
    var endedAtRedirect: Bool { live { live, _ in live.endedAtRedirect } ?? false }

    /// Whether the `Cookie` header of the task's current hop is the jar's (made for that hop's
    /// URL, made again for the next), rather than the caller's or a redirect override's (which
    /// goes on to the next hop of the same origin). Without any `Cookie` header, `false` before
    /// the first redirect (a header there is the caller's) and `true` after it (a header
    /// URLSession's own protocol copies from the first request is not the hop's).
    var carriesJarCookies: Bool {
        get { live { live, _ in live.carriesJarCookies } ?? false }
        set { live { live, _ in live.carriesJarCookies = newValue } }
    }

    /// Whether the `Cookie` header of the task's request, where each attempt starts, is the
    /// jar's; set with `carriesJarCookies` when the task is made.
    var requestCarriesJarCookies: Bool {
        live { live, _ in live.requestCarriesJarCookies } ?? false
    }

    /// The task's settings (`TaskSettings`), read under one lock; `nil` once it completed.
    var settings: TaskSettings? {
        live { live, _ in live.settings }
    }

    /// Changes the task's settings under one lock (a per-task setter, before the task runs).
    func updateSettings(_ change: (inout TaskSettings) -> Void) {
        live { live, _ in change(&live.settings) }
    }

    /// The carrier sent at least `count` bytes of the request body in all.
    func didSend(atLeast count: Int64) {
        state.withLock { $0.shown.bytesSent = max($0.shown.bytesSent, count) }
    }

    /// The libcurl transport ended one request and response of the task.
    func didFinish(_ transaction: TransactionMetrics) {
        live { live, _ in live.transactions.append(transaction) }
    }

    /// The libcurl transport stopped the response for exceeding `limit`.
    func didExceed(_ limit: ResponseLimits.Limit, declaredLength: Int64?, response: HTTPURLResponse?) {
        live { live, _ in live.record(.failed(SessionError.responseLimitExceeded(limit: limit, declaredLength: declaredLength, response: response))) }
    }

    /// A credential challenge was refused because no usable credential was available.
    func didRefuseAuthenticationChallenge() {
        live { live, _ in live.record(.authenticationRequired) }
    }

    /// Hands the completion's last step to the Swift task awaiting this one (before it runs).
    func deliver(to awaiter: @escaping Awaiter) {
        live { live, _ in live.awaiter = awaiter }
    }

    /// Asks for resume data when the (download) task completes after a cancel; a task that
    /// completed meanwhile has none to give, and `handler` gets `nil` at once.
    func produceResumeData(_ handler: @escaping @Sendable (Data?) -> Void) {
        if live({ live, _ in live.resumeDataHandler = handler }) == nil { handler(nil) }
    }

    /// Runs `body` with what the live task owns and shows, under the record's lock; `nil` once
    /// the task completed (a late event changes nothing).
    @discardableResult
    func live<Result>(_ body: (inout Live, inout Shown) -> Result) -> Result? {
        state.withLock { $0.live(body) }
    }

    /// A transition the task's run cannot take (`TaskRun`): a defect of this library, which
    /// stops debug builds where it happens; release builds fail the task with `error`.
    static func rejected(_ error: TransferStateError) {
        assertionFailure(error.errorDescription ?? "")
    }

    /// Whether the task's request has a body (an upload's, data, or a stream).
    var hasRequestBody: Bool {
        kind == .upload || task.originalRequest?.httpBody != nil || task.originalRequest?.httpBodyStream != nil
    }
}
