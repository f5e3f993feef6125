import AFLocking
import AFSecurity
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Owns one Foundation `URLSession`, receives its delegate events (through a small
/// `SessionDelegate` that URLSession retains in its place), and keeps a `TaskDelegate` per
/// task (its body, progress, handlers and metrics) in a lock-protected table.
///
/// Built for Linux: the traps of Foundation's URLSession there are handled so that callers
/// never meet them. A 401 without a usable credential fails promptly instead of hanging; a
/// task requested after invalidation throws instead of killing the process; downloads are
/// written by the manager (temporary files are always removed, cancelled downloads can
/// resume); 307/308 redirects never re-send a request without its body; metrics are measured.
/// Requests travel on libcurl beneath the session by default (`HTTPTransport`).
///
/// A manager lives while it is referenced or has tasks that have not completed: dropping the
/// last reference to a manager with requests in flight lets them complete, then frees it,
/// its session, transport, connections and queues (AFNetworking's managers live until
/// invalidated, because URLSession retains its delegate). `invalidateSession` still ends a
/// manager's session at once. AFNetworking: `AFURLSessionManager`.
open class URLSessionManager: NSObject, @unchecked Sendable {
    // @unchecked: mutable state is in three `Locked` values (`creation`, `configuration`,
    // `overridesState`), the task table locks itself, and every other stored property is
    // immutable.

    /// Receives upload or download progress, on the task's delivery queue.
    public typealias ProgressHandler = @Sendable (Progress) -> Void
    /// Receives the response, the serialized object (for downloads, the destination URL) and
    /// the error. Called exactly once per task.
    public typealias CompletionHandler = @Sendable (_ response: URLResponse?, _ responseObject: (any Sendable)?, _ error: (any Error)?) -> Void
    /// The completion handlers the managers use internally: also given the task.
    typealias TaskCompletion = @Sendable (URLSessionTask, URLResponse?, (any Sendable)?, (any Error)?) -> Void
    /// Chooses a download's destination from the file holding the body and the response.
    public typealias DownloadDestination = @Sendable (_ temporaryURL: URL, _ response: URLResponse) -> URL

    /// What task creation and invalidation decide under one lock. URLSession's task creation
    /// blocks on its own work queue, so this lock is never taken on the delegate queue: a
    /// callback must not wait behind a thread creating a task.
    private struct Creation {
        var session: URLSession?
        /// Whether `session` was made with the libcurl protocol registered: then libcurl
        /// carries every task of it. A session's protocols are fixed at its creation.
        var sessionCarriesLibcurl = false
        var acceptsTasks = true
        var securityPolicy = SecurityPolicy.default
        /// Carries the tasks on libcurl; made on first use, replaced with the policy or the
        /// session.
        var curlTransport: CurlTransport?
        var receiveWindowLimit = CurlReceiveWindow.defaultLimit
        var connection = ConnectionSettings()
        var interceptor: (any RequestInterceptor)?
        /// The event monitors were told that the `.libcurl` transport is unavailable.
        var toldLibcurlUnavailable = false
    }

    private struct Configuration {
        var responseSerializer: any URLResponseSerialization = JSONResponseSerializer()
        var completionQueue: DispatchQueue?
        var completionGroup = DispatchGroup()
        var credential: URLCredential?
        var responseLimits = ResponseLimits.default
        var eventMonitors: [any EventMonitor] = []
        var redaction = Redaction()
        var sendsCredentialsAcrossOrigins = false
    }

    /// How many redirects a task follows at most, on either transport (URLSession's limit on
    /// Apple platforms).
    public static let maximumRedirects = 16

    /// The serial queue URLSession calls the delegate on.
    public let operationQueue: OperationQueue
    /// The configuration every session of this manager is made with.
    public let sessionConfiguration: URLSessionConfiguration
    /// What carries the requests. Default `.libcurl`.
    public let transport: HTTPTransport
    /// The configuration's additional headers, which the manager puts on each task's request
    /// itself (under the request's own): as request headers, the redirect rules strip the
    /// sensitive ones on a change of origin, where URLSession and the transport would add them
    /// to every request of the task, wherever it was redirected.
    private let additionalHeaders: [(name: String, value: String)]
    /// Why the additional headers cannot be sent (checked once: they are read at init only).
    private let additionalHeadersProblem: String?
    /// `sessionConfiguration` without its additional headers and cookie store: what sessions
    /// and the transport are made with.
    private let carriedConfiguration: URLSessionConfiguration
    /// The manager's cookies (`CookieJar`): in memory, its own unless it was given a jar
    /// another manager has too. It replaces the configuration's `httpCookieStorage`, which on
    /// Linux is saved to disk; the configuration's `httpShouldSetCookies` and
    /// `httpCookieAcceptPolicy` still apply. Beyond AFNetworking.
    public let cookieJar: CookieJar
    let processingQueue = DispatchQueue(label: "AFNetworking.processing", attributes: .concurrent)
    let table = TaskDelegateTable()
    private let creation = Locked(Creation())
    private let configuration = Locked(Configuration())
    private let overridesState = Locked(SessionDelegateOverrides())
    /// Partial files of failed downloads whose errors carry resume data, until resumed.
    private let unresumedPartialFiles = Locked<Set<URL>>([])

    /// A manager with `configuration`, or by default `.default` without a `URLCache`: every
    /// data task otherwise pays for a cache lookup (a directory listing under `~/.cache` on
    /// Linux) that an API client rarely wants. `transport` chooses what carries the requests.
    public init(configuration: URLSessionConfiguration? = nil, transport: HTTPTransport = .libcurl, cookieJar: CookieJar = CookieJar()) {
        self.transport = transport
        self.cookieJar = cookieJar
        sessionConfiguration = configuration ?? {
            let configuration = URLSessionConfiguration.default
            configuration.urlCache = nil
            return configuration
        }()
        additionalHeadersProblem = sessionConfiguration.httpAdditionalHeaders.flatMap(RequestValidation.problem(ofAdditionalHeaders:))
        additionalHeaders = (sessionConfiguration.httpAdditionalHeaders ?? [:]).compactMap { name, value in
            (name as? String).map { ($0, "\(value)") }
        }.sorted { $0.name < $1.name }
        carriedConfiguration = sessionConfiguration.copy() as? URLSessionConfiguration ?? sessionConfiguration
        carriedConfiguration.httpAdditionalHeaders = nil
        // The manager keeps cookies in its jar: URLSession neither reads nor writes a store.
        carriedConfiguration.httpCookieStorage = nil
        operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        operationQueue.name = "AFNetworking.delegate"
        super.init()
    }

    /// Nobody references the manager and no task is left: invalidating the session lets
    /// URLSession release the delegate object and its own resources; the transport, with its
    /// connections, goes with `creation`.
    deinit {
        creation.withLock { $0.session }?.finishTasksAndInvalidate()
        removeUnresumedPartialFiles()
    }

    // MARK: Configuration

    /// The session; a new one is made on first use and after a reset. After an invalidation
    /// without reset it is the invalidated session.
    public var session: URLSession {
        creation.withLock { state in state.session ?? makeSession(&state, carryingLibcurl: carriesLibcurl(state)) }
    }

    /// Serializes the responses of tasks created from now on. Default `JSONResponseSerializer()`.
    public var responseSerializer: any URLResponseSerialization {
        get { configuration.withLock { $0.responseSerializer } }
        set { configuration.withLock { $0.responseSerializer = newValue } }
    }

    /// Where completion and progress handlers of tasks created from now on run. Default `nil`:
    /// a private concurrent queue, each task's handlers in order. Not the main queue, which a
    /// Linux command-line tool or service without a run loop never drains; set `.main` only if
    /// your program runs one.
    public var completionQueue: DispatchQueue? {
        get { configuration.withLock { $0.completionQueue } }
        set { configuration.withLock { $0.completionQueue = newValue } }
    }

    /// Entered when a task completes and left after its completion handler ran, so that
    /// `completionGroup.wait()` or `notify` waits for outstanding handlers. Default: a group of
    /// this manager's own.
    public var completionGroup: DispatchGroup {
        get { configuration.withLock { $0.completionGroup } }
        set { configuration.withLock { $0.completionGroup = newValue } }
    }

    /// How HTTPS servers are trusted. Default `.default`: the system's trust store and the
    /// hostname. The libcurl transport checks every HTTPS connection against the policy during
    /// the TLS handshake: a rejected server gets no byte of the request, and the task fails with
    /// `URLError.serverCertificateUntrusted` carrying the `TrustEvaluation`. A policy other than
    /// `.default` uses the libcurl transport also when `transport` is `.urlSession`.
    /// AFNetworking: `securityPolicy`.
    public var securityPolicy: SecurityPolicy {
        creation.withLock { $0.securityPolicy }
    }

    /// Sets `securityPolicy` for tasks created from now on. `HTTPSessionManager` throws
    /// `SessionError.pinningRequiresHTTPS` for a pinning policy without an https `baseURL`. On
    /// the `.urlSession` transport, a change between a policy that needs enforcement and one
    /// that does not moves the next task to a new session (the old one finishes its tasks and
    /// is invalidated), because only libcurl can enforce a policy.
    open func setSecurityPolicy(_ policy: SecurityPolicy) throws {
        setTransportSetting(\.securityPolicy, to: policy)
    }

    /// Sets what the libcurl transport is made with; a change makes the next task use a new
    /// transport (tasks in flight keep theirs).
    private func setTransportSetting<Value: Equatable>(_ setting: WritableKeyPath<Creation, Value>, to value: Value) {
        creation.withLock { state in
            guard state[keyPath: setting] != value else { return }
            state[keyPath: setting] = value
            state.curlTransport = nil
        }
    }

    /// How many bytes of a body the libcurl transport reads ahead of the delegate queue before
    /// it pauses reading, for tasks created from now on. Default 1 MiB; tests lower it.
    var receiveWindowLimit: Int {
        get { creation.withLock { $0.receiveWindowLimit } }
        set { setTransportSetting(\.receiveWindowLimit, to: newValue) }
    }

    /// How much of a response tasks created from now on may take in (`ResponseLimits`).
    /// Default `.default`: 256 MiB for a body kept in memory, no size limit for downloads,
    /// 100:1 decompression after the first MiB.
    public var responseLimits: ResponseLimits {
        get { configuration.withLock { $0.responseLimits } }
        set { configuration.withLock { $0.responseLimits = newValue } }
    }

    /// Replaces the response limits of `task`, a task of this manager not yet resumed.
    public func setResponseLimits(_ limits: ResponseLimits, for task: URLSessionTask) {
        table.delegate(for: task)?.limits = limits
    }

    /// The Unix domain socket that tasks created from now on connect to, whatever host their
    /// URL names (use a `baseURL` such as `http://localhost`); `nil`, the default, connects to
    /// the URL's host. A single request can name its socket itself with an `http+unix` URL
    /// (`http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info`). Both need the libcurl transport,
    /// which a manager on `.urlSession` then uses. Beyond AFNetworking.
    public var unixSocketPath: String? {
        get { creation.withLock { $0.connection.unixSocketPath } }
        set { setTransportSetting(\.connection.unixSocketPath, to: newValue) }
    }

    /// How long a connection (TCP, and TLS on top) may take to establish, to the millisecond,
    /// for tasks created from now on; `nil`, the default, allows the request's idle timeout
    /// (`timeoutInterval`). A task that runs out fails with `URLError.timedOut`, its `userInfo`
    /// naming `TimeoutKind.connect`. libcurl transport only. Beyond AFNetworking.
    public var connectTimeout: TimeInterval? {
        get { creation.withLock { $0.connection.connectTimeout } }
        set { setTransportSetting(\.connection.connectTimeout, to: newValue) }
    }

    /// The client certificate and key that tasks created from now on present to servers that
    /// ask for one (mutual TLS); `nil`, the default, presents none. The server-trust policy
    /// applies as before. A server that requires a certificate and gets none fails the task
    /// with `URLError.clientCertificateRequired`; one that refuses the certificate with
    /// `.clientCertificateRejected`. Needs the libcurl transport, which a manager on
    /// `.urlSession` then uses. Beyond AFNetworking (its Apple platforms answer a
    /// client-certificate challenge in the session delegate).
    public var clientIdentity: ClientIdentity? {
        get { creation.withLock { $0.connection.clientIdentity } }
        set { setTransportSetting(\.connection.clientIdentity, to: newValue) }
    }

    /// Which proxies tasks created from now on go through. Default `.automatic`: the session
    /// configuration's `connectionProxyDictionary`, or else the proxy environment variables as
    /// curl reads them (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`). `.none` turns
    /// proxies off; `.proxy(_:bypass:)` and `.proxies(http:https:bypass:)` name them. HTTPS goes
    /// through a `CONNECT` tunnel with the TLS handshake, and `securityPolicy`, checked against
    /// the origin. A failure that was the proxy's has a `ProxyError` as underlying error. A
    /// setting other than `.automatic` needs the libcurl transport, which a manager on
    /// `.urlSession` then uses. Beyond AFNetworking.
    public var proxy: ProxySetting {
        get { creation.withLock { $0.connection.proxy } }
        set { setTransportSetting(\.connection.proxy, to: newValue) }
    }

    /// Which HTTP version tasks created from now on speak. Default `.automatic`: HTTP/2 where
    /// the TLS handshake negotiates it (requests to one origin then share one connection),
    /// HTTP/1.1 otherwise. `.http1_1` never uses HTTP/2; `.http2PriorKnowledge` speaks HTTP/2
    /// over cleartext too. `TaskMetrics.networkProtocolName` tells what a task used. The
    /// libcurl transport negotiates; a setting other than `.automatic` makes a manager on
    /// `.urlSession` use it. Beyond AFNetworking.
    public var httpVersion: HTTPVersion {
        get { creation.withLock { $0.connection.httpVersion } }
        set { setTransportSetting(\.connection.httpVersion, to: newValue) }
    }

    /// Adapts and retries the requests of tasks created from now on (`RequestInterceptor`):
    /// `RetryPolicy`, an `Authenticator`, your own, or an `InterceptorChain` of them. Default
    /// `nil`: every task makes one attempt. A task made with an interceptor is one task to its
    /// caller however many attempts it takes: one completion, progress that never runs
    /// backwards, each attempt in `TaskMetrics.transactionMetrics`, a
    /// `Notification.Name.taskWillRetry` before each retry; cancelling it cancels the wait
    /// before a retry and the attempt in flight. Interceptors need the libcurl transport, which
    /// a manager on `.urlSession` then uses. Beyond AFNetworking.
    public var interceptor: (any RequestInterceptor)? {
        get { creation.withLock { $0.interceptor } }
        set { creation.withLock { $0.interceptor = newValue } }
    }

    /// Adds `interceptor` to `task`, a task of this manager not yet resumed and carried by
    /// libcurl; it runs after the manager's own interceptor.
    public func setInterceptor(_ interceptor: any RequestInterceptor, for task: URLSessionTask) {
        guard let delegate = table.delegate(for: task) else { return }
        delegate.interceptor = delegate.interceptor.map { InterceptorChain([$0, interceptor]) } ?? interceptor
    }

    /// Hear every task's events from now on (`EventMonitor`), such as a `RequestLogger`.
    /// Default none.
    public var eventMonitors: [any EventMonitor] {
        get { configuration.withLock { $0.eventMonitors } }
        set { configuration.withLock { $0.eventMonitors = newValue } }
    }

    /// Replaces the client identity of `task`, a task of this manager not yet resumed and
    /// carried by libcurl (made while the manager had a client identity, a policy that needs
    /// enforcement, or on the `.libcurl` transport). Connections opened with one identity are
    /// never reused for another.
    public func setClientIdentity(_ identity: ClientIdentity, for task: URLSessionTask) {
        table.delegate(for: task)?.clientIdentity = identity
    }

    /// Replaces the total timeout of `task`, a task of this manager not yet resumed: how long
    /// it may take from start to end, redirects included (`nil` for none). The default is the
    /// configuration's `timeoutIntervalForResource`, which URLSession on Linux ignores and the
    /// libcurl transport honours to the millisecond; infinity, or anything over about 31
    /// years, is no limit. Throws `SessionError.invalidRequest` for NaN or a negative value.
    /// libcurl transport only.
    public func setTotalTimeout(_ seconds: TimeInterval?, for task: URLSessionTask) throws {
        if let seconds, seconds.isNaN || seconds < 0 {
            throw SessionError.invalidRequest(reason: "the total timeout is \(seconds): a timeout is a number of seconds, at least 0")
        }
        table.delegate(for: task)?.totalTimeout = seconds
    }

    /// Answers HTTP Basic challenges of tasks created without a credential of their own.
    /// Default `nil`: a challenge fails the task with `SessionError.authenticationRequired`.
    public var credential: URLCredential? {
        get { configuration.withLock { $0.credential } }
        set { configuration.withLock { $0.credential = newValue } }
    }

    /// The names the manager treats as secret: headers stripped from a redirect to another
    /// origin, left out of resume data, and hidden by `RequestLogger` and `curlCommand` (which
    /// take it as their default). Extend it with `Redaction(additionalHeaders:)` or by adding to
    /// its sets. Default `Redaction()`. Beyond AFNetworking.
    public var redaction: Redaction {
        get { configuration.withLock { $0.redaction } }
        set { configuration.withLock { $0.redaction = newValue } }
    }

    /// Whether a redirect to another origin (scheme, host or port) keeps `Authorization`,
    /// `Cookie`, `Proxy-Authorization`, `Origin` and the `redaction` headers, as curl's
    /// `--location-trusted`: only for servers that are all trusted alike. Default `false`:
    /// they are dropped, as curl, browsers and AsyncHTTPClient drop them. A task may choose
    /// otherwise with `setSendsCredentialsAcrossOrigins(_:for:)`. Beyond AFNetworking.
    public var sendsCredentialsAcrossOrigins: Bool {
        get { configuration.withLock { $0.sendsCredentialsAcrossOrigins } }
        set { configuration.withLock { $0.sendsCredentialsAcrossOrigins = newValue } }
    }

    /// Replaces `sendsCredentialsAcrossOrigins` for `task`, a task of this manager not yet resumed.
    public func setSendsCredentialsAcrossOrigins(_ sends: Bool, for task: URLSessionTask) {
        table.delegate(for: task)?.sendsCredentialsAcrossOrigins = sends
    }

    /// Closures replacing or observing delegate events.
    public var overrides: SessionDelegateOverrides {
        get { overridesState.withLock { $0 } }
        set { overridesState.withLock { $0 = newValue } }
    }

    /// One override, read without copying the others (the delegate callbacks read them often).
    func override<Closure>(_ field: KeyPath<SessionDelegateOverrides, Closure?>) -> Closure? {
        overridesState.withLock { $0[keyPath: field] }
    }

    // MARK: Tasks

    /// The tasks created by this manager that have not completed.
    public var tasks: [URLSessionTask] { table.all.map(\.task) }
    /// The data tasks among `tasks`.
    public var dataTasks: [URLSessionTask] { table.all.filter { $0.kind == .data }.map(\.task) }
    /// The upload tasks among `tasks`.
    public var uploadTasks: [URLSessionTask] { table.all.filter { $0.kind == .upload }.map(\.task) }
    /// The download tasks among `tasks`.
    public var downloadTasks: [URLSessionTask] { table.all.filter { $0.kind == .download }.map(\.task) }

    /// The upload progress of a task of this manager that has not completed.
    public func uploadProgress(for task: URLSessionTask) -> Progress? { table.delegate(for: task)?.uploadProgress }

    /// The download progress of a task of this manager that has not completed.
    public func downloadProgress(for task: URLSessionTask) -> Progress? { table.delegate(for: task)?.downloadProgress }

    /// A data task for `request`, not yet resumed. A request with an `httpBodyStream` is sent
    /// as `uploadTask(withStreamedRequest:...)` sends it. Throws `SessionError.sessionInvalidated`
    /// after invalidation. AFNetworking: `dataTaskWithRequest:uploadProgress:downloadProgress:completionHandler:`.
    public func dataTask(
        with request: URLRequest, credential: URLCredential? = nil,
        uploadProgress: ProgressHandler? = nil, downloadProgress: ProgressHandler? = nil,
        completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        try makeDataTask(with: request, credential: credential, uploadProgress: uploadProgress,
                         downloadProgress: downloadProgress, completion: Self.taskCompletion(completionHandler))
    }

    /// Uploads the file at `fileURL` as the body of `request`, with its length as
    /// `Content-Length`. AFNetworking: `uploadTaskWithRequest:fromFile:progress:completionHandler:`.
    public func uploadTask(
        with request: URLRequest, fromFile fileURL: URL, credential: URLCredential? = nil,
        progress: ProgressHandler? = nil, completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        try makeTask(kind: .upload, request: request, uploadFile: fileURL, credential: credential,
                     handlers: .init(uploadProgress: progress, completion: Self.taskCompletion(completionHandler)))
    }

    /// Uploads `bodyData` as the body of `request`. Sent as the request's body rather than
    /// through URLSession's upload-from-data, which copies the whole body on Linux.
    /// AFNetworking: `uploadTaskWithRequest:fromData:progress:completionHandler:`.
    public func uploadTask(
        with request: URLRequest, from bodyData: Data, credential: URLCredential? = nil,
        progress: ProgressHandler? = nil, completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        var request = request
        request.httpBodyStream = nil
        request.httpBody = bodyData
        return try makeTask(kind: .upload, request: request, credential: credential,
                            handlers: .init(uploadProgress: progress, completion: Self.taskCompletion(completionHandler)))
    }

    /// Uploads the request's `httpBodyStream`. The stream is sent chunked; a `Content-Length`
    /// on the request is removed, because beside a chunked body it makes strict servers refuse
    /// the request. A stream that fails completes the task with `SessionError.bodyStreamFailed`.
    /// AFNetworking: `uploadTaskWithStreamedRequest:progress:completionHandler:`.
    public func uploadTask(
        withStreamedRequest request: URLRequest, credential: URLCredential? = nil,
        progress: ProgressHandler? = nil, completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        try makeDataTask(with: request, credential: credential, uploadProgress: progress,
                         completion: Self.taskCompletion(completionHandler))
    }

    /// Downloads the body of `request` to the URL `destination` returns. The body is written
    /// to a file of the manager's own and moved atomically when the task succeeds; it is
    /// deleted on failure or cancellation, unless resume data was asked for, or the transfer
    /// failed after receiving bytes of a resource that can be resumed (an `ETag` or
    /// `Last-Modified`): then the error, a `URLError`, carries resume data
    /// (`downloadTaskResumeData`, `userInfo[NSURLSessionDownloadTaskResumeData]`), as on Apple
    /// platforms, and the partial file stays until it is resumed or the session invalidated or
    /// the manager freed. The completion's
    /// object is the destination URL. AFNetworking: `downloadTaskWithRequest:progress:destination:completionHandler:`.
    public func downloadTask(
        with request: URLRequest, credential: URLCredential? = nil, progress: ProgressHandler? = nil,
        destination: DownloadDestination? = nil, options: DownloadOptions = [], completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        try makeDownloadTask(request: request, writer: DownloadWriter(), credential: credential, progress: progress,
                             destination: destination, options: options, completion: Self.taskCompletion(completionHandler))
    }

    /// Continues a download from resume data produced by `cancel(_:producingResumeData:)`: asks
    /// for the rest with `Range` and `If-Range`; when the server sends the whole resource
    /// instead (it ignores ranges, or the resource changed), downloads it from the start.
    /// Resume data holds no credential: pass the new `request` for the same URL to send its
    /// headers (an `Authorization` among them); without it the original request's other headers
    /// are sent. Nothing in the data is trusted: its partial file must be a regular file of this
    /// user in the private download directory, with the recorded size. Throws
    /// `SessionError.invalidResumeData` (also when `request` is for another URL), never touching
    /// a file it names otherwise. AFNetworking: `downloadTaskWithResumeData:progress:destination:completionHandler:`.
    public func downloadTask(
        withResumeData resumeData: Data, request: URLRequest? = nil, credential: URLCredential? = nil, progress: ProgressHandler? = nil,
        destination: DownloadDestination? = nil, options: DownloadOptions = [], completionHandler: CompletionHandler? = nil
    ) throws -> URLSessionTask {
        let resume = try ResumeData(decoding: resumeData)
        let continuation = try resume.continuationRequest(replacing: request)
        let staging = DownloadStaging()
        let handle = try staging.openPartialFile(atPath: resume.partialFilePath, size: resume.bytesReceived)
        stopRemoving(resume)
        let writer = DownloadWriter(resuming: URL(fileURLWithPath: resume.partialFilePath), handle: handle,
                                    resumeOffset: resume.bytesReceived, staging: staging)
        return try makeDownloadTask(request: continuation, writer: writer, credential: credential, progress: progress,
                                    destination: destination, options: options, completion: Self.taskCompletion(completionHandler))
    }

    /// Cancels a download and hands `handler` the data to resume it with, or `nil` when it
    /// cannot be resumed (nothing received yet, or no `ETag`/`Last-Modified` to validate the
    /// range with). URLSession on Linux never produces resume data itself.
    /// AFNetworking: `-[NSURLSessionDownloadTask cancelByProducingResumeData:]`.
    public func cancel(_ task: URLSessionTask, producingResumeData handler: @escaping @Sendable (Data?) -> Void) {
        guard let delegate = table.delegate(for: task), delegate.kind == .download else {
            table.delegate(for: task)?.bodyStream?.release(cancelling: true)
            task.cancel()
            handler(nil)
            return
        }
        delegate.produceResumeData(handler)
        task.cancel()
    }

    /// Resumes `task` and posts `Notification.Name.taskDidResume`.
    public func resume(_ task: URLSessionTask) {
        task.resume()
        post(.taskDidResume, task: task)
    }

    /// Suspends `task` and posts `Notification.Name.taskDidSuspend`.
    public func suspend(_ task: URLSessionTask) {
        task.suspend()
        post(.taskDidSuspend, task: task)
    }

    // MARK: Invalidation

    /// Invalidates the session: cancelling its tasks (they complete with `URLError.cancelled`)
    /// or letting them finish. Partial files of failed downloads not resumed yet are removed
    /// (their resume data no longer works). Without `resetSession`, creating a task afterwards throws
    /// `SessionError.sessionInvalidated`; with it, the next task gets a new session.
    /// AFNetworking: `invalidateSessionCancelingTasks:resetSession:`.
    public func invalidateSession(cancelingTasks: Bool, resetSession: Bool = false) {
        let session: URLSession? = creation.withLock { state in
            let session = state.session
            // Without a reset the invalidated session stays readable, as in AFNetworking.
            if resetSession { state.session = nil }
            state.acceptsTasks = resetSession
            return session
        }
        removeUnresumedPartialFiles()
        guard let session else { return }
        // URLSession's own protocol cancels a task only once a read of its body returned.
        if cancelingTasks { table.all.forEach { $0.bodyStream?.release(cancelling: true) } }
        if cancelingTasks { session.invalidateAndCancel() } else { session.finishTasksAndInvalidate() }
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
    private func stopRemoving(_ resume: ResumeData) {
        _ = unresumedPartialFiles.withLock { $0.remove(URL(fileURLWithPath: resume.partialFilePath)) }
    }

    /// Keeps the partial file of a failed download whose error carries resume data, until it
    /// is resumed, the session invalidated or the manager freed.
    func keepUntilResumed(_ partialFile: URL) {
        _ = unresumedPartialFiles.withLock { $0.insert(partialFile) }
    }

    private func removeUnresumedPartialFiles() {
        for file in unresumedPartialFiles.withLock({ files in defer { files = [] }; return files }) {
            try? FileManager.default.removeItem(at: file)
        }
    }

    // MARK: Internals

    /// A data task; a request with a body stream becomes an upload with a wrapped stream.
    func makeDataTask(
        with request: URLRequest, credential: URLCredential?, uploadProgress: ProgressHandler? = nil,
        downloadProgress: ProgressHandler? = nil, serializer: (any URLResponseSerialization)? = nil, completion: TaskCompletion?
    ) throws -> URLSessionTask {
        try makeTask(kind: request.httpBodyStream == nil ? .data : .upload, request: request, credential: credential, serializer: serializer,
                     handlers: .init(uploadProgress: uploadProgress, downloadProgress: downloadProgress, completion: completion))
    }

    func makeDownloadTask(
        request: URLRequest, writer: DownloadWriter, credential: URLCredential?, progress: ProgressHandler?,
        destination: DownloadDestination?, options: DownloadOptions, completion: TaskCompletion?
    ) throws -> URLSessionTask {
        try makeTask(kind: .download, request: request, credential: credential, writer: writer,
                     handlers: .init(downloadProgress: progress, completion: completion, destination: destination, downloadOptions: options))
    }

    private static func taskCompletion(_ handler: CompletionHandler?) -> TaskCompletion? {
        guard let handler else { return nil }
        return { _, response, object, error in handler(response, object, error) }
    }

    /// Creates the task from the prepared request (a data task, or for `uploadFile` on
    /// URLSession's own protocol an upload task; on libcurl the file becomes a body stream with
    /// its length, since a custom protocol never sees the body of an upload task) and registers its delegate under the manager's
    /// lock, so that no task is ever created on an invalidated session (URLSession on Linux
    /// kills the process).
    func makeTask(
        kind: TaskDelegate.Kind, request: URLRequest, uploadFile: URL? = nil, credential: URLCredential?,
        serializer: (any URLResponseSerialization)? = nil, writer: DownloadWriter? = nil, handlers: TaskDelegate.Handlers
    ) throws -> URLSessionTask {
        let configuration = configuration.withLock { $0 }
        return try creation.withLock { state in
            guard state.acceptsTasks else { throw SessionError.sessionInvalidated }
            if let problem = additionalHeadersProblem ?? RequestValidation.problem(
                of: request,
                timeouts: ["timeoutInterval": request.timeoutInterval, "timeoutIntervalForRequest": sessionConfiguration.timeoutIntervalForRequest,
                           "timeoutIntervalForResource": sessionConfiguration.timeoutIntervalForResource,
                           "connectTimeout": state.connection.connectTimeout]) {
                throw SessionError.invalidRequest(reason: problem)
            }
            let (session, curlTransport) = try currentCarrier(&state)
            if curlTransport == nil, transport == .libcurl, !state.toldLibcurlUnavailable, !configuration.eventMonitors.isEmpty,
               let unavailable = CurlTransport.unavailable {
                state.toldLibcurlUnavailable = true
                configuration.eventMonitors.notify { $0.libcurlTransportUnavailable(unavailable) }
            }
            var request = additionalHeaders.isEmpty ? request : Self.withAdditionalHeaders(additionalHeaders, on: request)
            // The jar first: an empty one answers at once, where reading the request's header
            // costs thousands of instructions. A `Cookie` header of the caller's replaces the jar's.
            var carriesJarCookies = false
            if sessionConfiguration.httpShouldSetCookies, request.httpShouldHandleCookies, let url = request.url, let cookies = cookieJar.headerValue(for: url),
               request.value(forHTTPHeaderField: "Cookie") == nil {
                request.setValue(cookies, forHTTPHeaderField: "Cookie")
                carriesJarCookies = true
            }
            if let uploadFile, curlTransport != nil { request = try Self.streaming(uploadFile, as: request) }
            let (prepared, bodyStream) = Self.prepared(
                request, carriedBy: curlTransport, configurationTimeout: sessionConfiguration.timeoutIntervalForRequest)
            let task = if let uploadFile, curlTransport == nil {
                session.uploadTask(with: prepared, fromFile: uploadFile)
            } else {
                session.dataTask(with: prepared)
            }
            let delegate = TaskDelegate(
                task: task, kind: kind, responseSerializer: serializer ?? configuration.responseSerializer, credential: credential,
                bodyStream: bodyStream, knownUploadLength: Self.knownLength(of: request), handlers: handlers, writer: writer,
                session: session, manager: self, curlTransport: curlTransport, completionQueue: configuration.completionQueue,
                completionGroup: configuration.completionGroup, processingQueue: processingQueue,
                limits: configuration.responseLimits, totalTimeout: sessionConfiguration.timeoutIntervalForResource,
                interceptor: curlTransport == nil ? nil : state.interceptor, monitors: configuration.eventMonitors,
                receivesBodyFromTransport: curlTransport != nil && overridesState.withLock {
                    $0.dataTaskDidReceiveResponse == nil
                        && (kind == .download ? $0.downloadTaskDidWriteData == nil : $0.dataTaskDidReceiveData == nil)
                })
            delegate.requestCarriesJarCookies = carriesJarCookies
            table.insert(delegate, keepingAlive: self)
            if !delegate.monitors.isEmpty { delegate.monitors.notify { [request] in $0.taskCreated(task, request: request) } }
            return task
        }
    }

    /// The stub answering every request, when the manager was made with `.stubbed`.
    private var stub: TransportStub? {
        if case .stubbed(let stub) = transport { return stub }
        return nil
    }

    /// Whether tasks go through libcurl under `state`: on the libcurl transport when it can be
    /// loaded (otherwise URLSession's own protocol carries them), and always for a policy that
    /// needs enforcement, a Unix domain socket, a client identity or an interceptor.
    private func carriesLibcurl(_ state: Creation) -> Bool {
        // The common case first: the policy comparison costs thousands of instructions a task.
        (transport == .libcurl && CurlTransport.unavailable == nil) || stub != nil
            || state.securityPolicy.needsEnforcement || state.connection.needsLibcurl || state.interceptor != nil
    }

    /// `request` with each of `headers` it does not set itself (names compared in any case).
    private static func withAdditionalHeaders(_ headers: [(name: String, value: String)], on request: URLRequest) -> URLRequest {
        var request = request
        for (name, value) in headers where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// A new session, with the libcurl protocol registered when `carryingLibcurl`.
    private func makeSession(_ state: inout Creation, carryingLibcurl: Bool) -> URLSession {
        let configuration = carriedConfiguration.copy() as? URLSessionConfiguration ?? carriedConfiguration
        if carryingLibcurl { configuration.protocolClasses = [CurlURLProtocol.self] + (configuration.protocolClasses ?? []) }
        let session = URLSession(configuration: configuration, delegate: SessionDelegate(manager: self), delegateQueue: operationQueue)
        state.session = session
        state.sessionCarriesLibcurl = carryingLibcurl
        state.curlTransport = nil
        return session
    }

    /// The session for the next task and, when libcurl carries it, the transport for the
    /// policy. Throws when the policy needs libcurl and it cannot be had.
    private func currentCarrier(_ state: inout Creation) throws -> (session: URLSession, transport: CurlTransport?) {
        let carriesLibcurl = carriesLibcurl(state)
        let session: URLSession
        if let current = state.session, state.sessionCarriesLibcurl == carriesLibcurl {
            session = current
        } else {
            state.session?.finishTasksAndInvalidate()
            session = makeSession(&state, carryingLibcurl: carriesLibcurl)
        }
        guard carriesLibcurl else { return (session, nil) }
        if let curlTransport = state.curlTransport { return (session, curlTransport) }
        do {
            let curlTransport = try CurlTransport(
                policy: state.securityPolicy, configuration: carriedConfiguration,
                receiveWindowLimit: state.receiveWindowLimit, connection: state.connection, cookieJar: cookieJar, stub: stub)
            state.curlTransport = curlTransport
            return (session, curlTransport)
        } catch {
            throw SessionError.securityPolicyUnavailable(reason: "\(error)")
        }
    }

    /// `request` with the file at `fileURL` as a body stream and its length as `Content-Length`.
    private static func streaming(_ fileURL: URL, as request: URLRequest) throws -> URLRequest {
        guard let size = FileSize.ofRegularFile(atPath: fileURL.path) else {
            throw SessionError.bodyStreamFailed(underlying: CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: fileURL.path]))
        }
        var streamed = request
        streamed.httpBody = nil
        // A file stream that can start over, for a retry or a 307/308 redirect.
        streamed.httpBodyStream = MultipartBodyStream.file(fileURL, length: UInt64(size))
        streamed.setValue(String(size), forHTTPHeaderField: "Content-Length")
        return streamed
    }

    /// The request as URLSession on Linux can send it, or as `transport` carries it:
    /// - a body stream is wrapped in `UploadBodyStream`; URLSession sends it chunked, so a
    ///   `Content-Length` beside it is dropped (with both, strict servers refuse the body),
    ///   while the transport sends a declared length instead of chunks;
    /// - the idle timeout is the request's own, or when it has none (the default 60 s) the
    ///   configuration's `timeoutIntervalForRequest`, as URLSession on Linux chooses (measured:
    ///   configuration 2 s, request untouched: timed out after 2 s; request set to 3 s: 3 s). Once
    ///   set on the request, URLSession counts it as the request's own, so the manager sets the
    ///   chosen value itself. For URLSession's own protocol it is rounded up to whole seconds:
    ///   URLSession on Linux truncates it to whole seconds, and a value below one second often
    ///   fails at once with `URLError.timedOut` (measured: 0.95 s failed 5 times in 5, 0.1 s
    ///   twice in 5; 1.5 s fired after 1.0 s); the libcurl transport keeps the milliseconds.
    static func prepared(
        _ request: URLRequest, carriedBy transport: CurlTransport?, configurationTimeout: TimeInterval
    ) -> (URLRequest, UploadBodyStream?) {
        var request = request
        let timeout = request.timeoutInterval == Self.defaultRequestTimeout ? configurationTimeout : request.timeoutInterval
        // URLSession's own protocol converts the timeout to an integer: no limit is the longest one.
        let chosen = transport == nil ? min(max(1, timeout.rounded(.up)), TransferTimeouts.longest) : timeout
        // Set only when it changes: every change copies the request's storage.
        if request.timeoutInterval != chosen { request.timeoutInterval = chosen }
        var stream: UploadBodyStream?
        if let source = request.httpBodyStream {
            if transport == nil {
                request.setValue(nil, forHTTPHeaderField: "Content-Length")
            } else if request.value(forHTTPHeaderField: "Content-Length") == nil, let length = request.multipartContentLength {
                request.setValue(String(length), forHTTPHeaderField: "Content-Length")
            }
            stream = UploadBodyStream(source: source)
            request.httpBodyStream = stream
        }
        return (request, stream)
    }

    /// `URLRequest.timeoutInterval` of a request that did not set its own.
    private static let defaultRequestTimeout = URLRequest(url: URL(fileURLWithPath: "/")).timeoutInterval

    private static func knownLength(of request: URLRequest) -> Int64? {
        if let length = request.multipartContentLength { return Int64(length) }
        return request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
    }

    func post(_ name: Notification.Name, task: URLSessionTask, userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: task, userInfo: userInfo)
    }

    func postCompletion(
        of task: URLSessionTask, response: URLResponse?, data: Data, result: TaskDelegate.Result,
        serializer: any URLResponseSerialization, metrics: TaskMetrics
    ) {
        // Built with the key type `Notification` keeps: a `[String: Any]` is converted element
        // by element (6,600 instructions a task).
        var userInfo = [AnyHashable: Any](minimumCapacity: 6)
        userInfo[SessionNotificationKey.responseSerializer] = serializer
        userInfo[SessionNotificationKey.metrics] = metrics
        if !data.isEmpty { userInfo[SessionNotificationKey.responseData] = data }
        if let object = result.object { userInfo[SessionNotificationKey.serializedResponse] = object }
        if let error = result.error { userInfo[SessionNotificationKey.error] = error }
        if let assetPath = result.assetPath { userInfo[SessionNotificationKey.assetPath] = assetPath }
        post(.taskDidComplete, task: task, userInfo: userInfo)
    }

}
