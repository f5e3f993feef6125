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
    /// blocks on its own work queue, so this lock is never taken on the delegate queue or the
    /// transport's: a callback must not wait behind a thread creating a task.
    struct Creation {
        var session: URLSession?
        /// The manager's own tasks of `session` that have not completed: entered when one is
        /// made, left when it completes; the session is invalidated after them.
        var managedTasks = DispatchGroup()
        /// The manager's own tasks made so far: the next one's `taskIdentifier` follows.
        var taskCount = 0
        var acceptsTasks = true
        var securityPolicy = SecurityPolicy.default
        /// Carries the tasks (the libcurl transport, `URLSessionManager+Carrier`); made on
        /// first use, replaced with the policy or the session.
        var carrier: (any TransferCarrier)?
        var receiveWindowLimit = ReceiveWindow.defaultLimit
        var connection = ConnectionSettings()
        var interceptor: (any RequestInterceptor)?
        /// The event monitors were told that the `.libcurl` transport is unavailable.
        var toldLibcurlUnavailable = false
    }

    struct Configuration {
        var responseSerializer: any URLResponseSerialization = JSONResponseSerializer()
        var completionQueue: DispatchQueue?
        var completionGroup = DispatchGroup()
        var credential: URLCredential?
        var responseLimits = ResponseLimits.default
        var eventMonitors: [any EventMonitor] = []
        var instrumentation: (any TaskInstrumentation)?
        var redaction = Redaction()
        var sendsCredentialsAcrossOrigins = false
        var responseCache: ResponseCache?
    }

    /// How many redirects a task follows at most, on either transport (URLSession's limit on
    /// Apple platforms); each attempt of a task its interceptors retry, as many again.
    public static let maximumRedirects = RedirectPolicy.maximumRedirects

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
    let additionalHeaders: [(name: String, value: String)]
    /// Why the additional headers cannot be sent (checked once: they are read at init only).
    let additionalHeadersProblem: String?
    /// `sessionConfiguration` without its additional headers and cookie store: what sessions
    /// and the transport are made with.
    let carriedConfiguration: URLSessionConfiguration
    /// The manager's cookies (`CookieJar`): in memory, its own unless it was given a jar
    /// another manager has too. It replaces the configuration's `httpCookieStorage`, which on
    /// Linux is saved to disk; the configuration's `httpShouldSetCookies` and
    /// `httpCookieAcceptPolicy` still apply. Beyond AFNetworking.
    public let cookieJar: CookieJar
    let processingQueue = DispatchQueue(label: "AFNetworking.processing", attributes: .concurrent)
    let table = TaskDelegateTable()
    let creation = Locked(Creation())
    let configuration = Locked(Configuration())
    let overridesState = Locked(SessionDelegateOverrides())
    /// Partial files of failed downloads whose errors carry resume data, until resumed.
    let unresumedPartialFiles = Locked<Set<URL>>([])

    /// A manager with `configuration`, or by default `.default` without a `URLCache`, so that
    /// every request goes to the network unless the manager is given a `responseCache`. A
    /// configuration's `URLCache` gives the manager its `responseCache` (URLSession's own
    /// cache is never used: its lookup lists a directory under `~/.cache` on Linux for every
    /// data task). `transport` chooses what carries the requests.
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
        // And responses in its `responseCache` (a configuration's `URLCache` becomes one), in
        // front of both transports.
        carriedConfiguration.urlCache = nil
        operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        operationQueue.name = "AFNetworking.delegate"
        super.init()
        if let urlCache = sessionConfiguration.urlCache {
            self.configuration.withLock { $0.responseCache = ResponseCache.standIn(for: urlCache) }
        }
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
    /// without reset it is the invalidated session. It carries the tasks of URLSession's own
    /// protocol; the manager's own tasks (on libcurl) are not among its tasks: invalidate them
    /// with `invalidateSession(cancelingTasks:resetSession:)`.
    public var session: URLSession {
        creation.withLock { state in state.session ?? makeSession(&state) }
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
    /// the `.urlSession` transport, a policy that needs enforcement moves the next tasks to
    /// libcurl, because only libcurl can enforce a policy.
    open func setSecurityPolicy(_ policy: SecurityPolicy) throws {
        setTransportSetting(\.securityPolicy, to: policy)
    }

    /// Sets what the libcurl transport is made with; a change makes the next task use a new
    /// transport (tasks in flight keep theirs).
    private func setTransportSetting<Value: Equatable>(_ setting: WritableKeyPath<Creation, Value>, to value: Value) {
        creation.withLock { state in
            guard state[keyPath: setting] != value else { return }
            state[keyPath: setting] = value
            state.carrier = nil
        }
    }

    /// How many bytes of a streamed body the libcurl transport reads ahead of its consumer before
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
        table.delegate(for: task)?.updateSettings { $0.limits = limits }
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
        delegate.updateSettings { $0.interceptor = $0.interceptor.map { InterceptorChain([$0, interceptor]) } ?? interceptor }
    }

    /// Hear every task's events from now on (`EventMonitor`), such as a `RequestLogger`.
    /// Default none.
    public var eventMonitors: [any EventMonitor] {
        get { configuration.withLock { $0.eventMonitors } }
        set { configuration.withLock { $0.eventMonitors = newValue } }
    }

    /// Sees every task made from now on from its caller's side (`TaskInstrumentation`), such as
    /// the `AFNetworkingLogging`, `AFNetworkingMetrics` and `AFNetworkingTracing` ones; several
    /// combine in an `InstrumentationList`. Default `nil`: a task then costs one `nil` check.
    /// Beyond AFNetworking.
    public var instrumentation: (any TaskInstrumentation)? {
        get { configuration.withLock { $0.instrumentation } }
        set { configuration.withLock { $0.instrumentation = newValue } }
    }

    /// Replaces the client identity of `task`, a task of this manager not yet resumed and
    /// carried by libcurl (made while the manager had a client identity, a policy that needs
    /// enforcement, or on the `.libcurl` transport). Connections opened with one identity are
    /// never reused for another.
    public func setClientIdentity(_ identity: ClientIdentity, for task: URLSessionTask) {
        table.delegate(for: task)?.updateSettings { $0.clientIdentity = identity }
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
        table.delegate(for: task)?.updateSettings { $0.totalTimeout = seconds }
    }

    /// Answers HTTP Basic challenges of tasks created without a credential of their own (each
    /// task takes the value it has when the task is made).
    /// Default `nil`: a challenge fails the task with `SessionError.authenticationRequired`.
    public var credential: URLCredential? {
        get { configuration.withLock { $0.credential } }
        set { configuration.withLock { $0.credential = newValue } }
    }

    /// The names the manager treats as secret: headers stripped from a redirect to another
    /// origin (by tasks made after it is set), left out of resume data, and hidden by
    /// `RequestLogger` and `curlCommand` (which take it as their default). Extend it with `Redaction(additionalHeaders:)` or by adding to
    /// its sets. Default `Redaction()`. Beyond AFNetworking.
    public var redaction: Redaction {
        get { configuration.withLock { $0.redaction } }
        set { configuration.withLock { $0.redaction = newValue } }
    }

    /// Whether a redirect to another origin (scheme, host or port) keeps `Authorization`,
    /// `Cookie`, `Proxy-Authorization`, `Origin` and the `redaction` headers, as curl's
    /// `--location-trusted`: only for servers that are all trusted alike. Default `false`:
    /// they are dropped, as curl, browsers and AsyncHTTPClient drop them. Each task takes the
    /// value it has when the task is made (with the `redaction` then); a task may choose
    /// otherwise with `setSendsCredentialsAcrossOrigins(_:for:)`. Beyond AFNetworking.
    public var sendsCredentialsAcrossOrigins: Bool {
        get { configuration.withLock { $0.sendsCredentialsAcrossOrigins } }
        set { configuration.withLock { $0.sendsCredentialsAcrossOrigins = newValue } }
    }

    /// Replaces `sendsCredentialsAcrossOrigins` for `task`, a task of this manager not yet resumed.
    public func setSendsCredentialsAcrossOrigins(_ sends: Bool, for task: URLSessionTask) {
        table.delegate(for: task)?.updateSettings { $0.redirects.sendsCredentialsAcrossOrigins = sends }
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
}
