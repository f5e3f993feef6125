import AFSecurity
import AFSerialization
import LibcurlBridge
import OpenSSLBridge
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One task of a `CurlURLProtocol` on libcurl: the request turned into an easy handle, the
/// server's chain checked in the handshake, the response and body handed to the protocol's
/// client, redirects and Basic challenges followed with a new easy handle after asking the
/// manager. Lives on its transport's queue; its calls to the client go to URLSession's work
/// queue through the transport (`tellClient`).
final class CurlTransfer: @unchecked Sendable {
    // @unchecked: every field is touched only on the transport's queue (made in startLoading on
    // URLSession's work queue, then handed over; libcurl callbacks run inside the transport's
    // calls there).

    private enum Body {
        case none
        case data(Data, offset: Int)
        case stream(InputStream, consumed: Bool)
    }

    /// libcurl's receive buffer: the most raw bytes one read decodes into write callbacks. A
    /// download to a file keeps the 128 KiB bulk transfers were tuned with; a body kept in memory
    /// reads 64 KiB, since a read is decoded whole before libcurl counts it, so a compression
    /// bomb is stopped only after up to the ratio limit times one read (a 1 GiB bomb peaked at
    /// 42.8-46.5 MiB, against 48.3-59.7 MiB), while 80 x 10 MB bodies in memory ran at the same
    /// share of URLSession's speed within the noise (0.82-0.93, against 0.83-0.93).
    private var receiveBufferSize: Int { isDownload ? 128 * 1024 : 64 * 1024 }

    private var request: URLRequest
    /// The request URLSession started the task with: each attempt starts from it.
    private let originalRequest: URLRequest
    private var urlProtocol: CurlURLProtocol?
    let transport: CurlTransport
    private var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutableRawPointer?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
    private var body: Body = .none
    private var uploadLength: Int64 = -1
    private var reportedUpload: Int64 = 0
    private var headerLines: [String] = []
    private var state = CurlTransferState<URLRequest>()
    private var evaluation: TrustEvaluation?
    /// Presented when a server asks for a client certificate; the task's own or the transport's.
    private var clientIdentity: ClientIdentity?
    /// A server asked for a client certificate while the transfer had none to present.
    private var certificateRequested = false
    /// The proxy the current hop goes through, and what failed there, if anything.
    private var hopProxy: Proxy?
    private var proxyFailure: ProxyError?
    /// The hop's body stream, read away from the transport's queue.
    private var bodyReader: StreamedBodyReader?
    /// libcurl paused sending until the body stream has bytes.
    private var isWaitingForBody = false
    /// Why this hop's response head was refused, if it was.
    private var framingFault: ResponseFramingError?
    /// TLS handshakes the current hop began: through an `.https` proxy the first is the
    /// proxy's (libcurl runs the SSL_CTX callback for it too), which libcurl verifies with the
    /// proxy's anchors; the manager's policy is for the origin's.
    private var hopHandshakes = 0
    /// The current hop's start, the end of its request body, and its connection's TLS.
    private var hopFetchStart = Date()
    private var hopRequestEnd: Date?
    private var hopTLS: (version: String, cipher: String)?
    /// The task's response limits (`ResponseLimits.default` when the manager has none for it).
    private var limits = ResponseLimits.default
    private var isDownload = false
    /// The current hop's final response, and its body bytes received (raw, as libcurl's last
    /// progress call counted them, which may lag behind) and delivered (decoded).
    private var response: HTTPURLResponse?
    private var receivedBodyBytes: Int64 = 0
    private var decodedBodyBytes: Int64 = 0
    /// The connect, idle and total timeouts; the total counts from `transferStart`, libcurl's
    /// from `hopStart`, which it was given `hopTotalMilliseconds` for.
    private let timeouts: TransferTimeouts
    private let transferStart = DispatchTime.now()
    private var hopStart = DispatchTime.now()
    private var hopTotalMilliseconds = 0
    /// The last byte received or sent; the transport's idle timer compares it with the idle timeout.
    private var lastActivity = DispatchTime.now()
    /// The task's interceptors (`nil`: every attempt is the only one), the attempt running, and
    /// what runs between attempts: the interceptors' work, or the wait before a retry.
    private var interceptor: (any RequestInterceptor)?
    private var reportsAttempts = false
    private var bodySink: (any CurlBodySink)?
    private var attempt = 1
    private var interceptorWork: Task<Void, Never>?
    private var retryTimer: DispatchSourceTimer?
    /// The attempt's error response held back while the interceptors decide, and its body.
    private var heldResponse: HTTPURLResponse?
    private var heldBody = Data()
    /// Whether any byte of a response arrived in the attempt, and whether its last hop went on
    /// a reused connection.
    private var receivedResponseBytes = false
    private var hopReusedConnection = false
    /// Where the next attempt continues the body already delivered, and the error that ends the
    /// task if the server does not continue it.
    private var continuation: (range: RangeContinuation, error: URLError)?
    private var refusedContinuation: URLError?
    private lazy var window = CurlReceiveWindow(limit: transport.receiveWindowLimit) { [weak self] in
        guard let self else { return }
        transport.resumeReading(self)
    }

    init(request: URLRequest, urlProtocol: CurlURLProtocol, transport: CurlTransport) {
        self.request = request
        originalRequest = request
        self.urlProtocol = urlProtocol
        self.transport = transport
        body = Self.body(of: request, previous: .none)
        clientIdentity = transport.connection.clientIdentity
        var totalTimeout: TimeInterval?
        if let task = urlProtocol.task {
            if let options = transport.observer?.transferOptions(of: task) {
                limits = options.limits
                isDownload = options.isDownload
                totalTimeout = options.totalTimeout
                if let identity = options.clientIdentity { clientIdentity = identity }
                interceptor = options.interceptor
                reportsAttempts = options.reportsAttempts
                bodySink = options.bodySink
            }
        }
        timeouts = TransferTimeouts(connect: transport.connection.connectTimeout ?? request.timeoutInterval, idle: request.timeoutInterval,
                                    total: totalTimeout)
        // A body sink takes each chunk as it comes: there is nothing to read ahead of.
        if let task = urlProtocol.task, bodySink == nil { transport.observer?.curlTask(task, receivesBodyThrough: window) }
    }

    private static func seconds(from start: DispatchTime, to end: DispatchTime = .now()) -> TimeInterval {
        TimeInterval(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1_000_000_000
    }

    /// The body `request` sends; a stream the previous request already read starts over when
    /// it can be replayed (`UploadBodyStream.rewind()`) and no read of it is in flight
    /// (`reader`, stopped, may still be blocked in its source), and otherwise stays consumed.
    private static func body(of request: URLRequest, previous: Body, reader: StreamedBodyReader? = nil) -> Body {
        if let data = request.httpBody { return .data(data, offset: 0) }
        guard let stream = request.httpBodyStream else { return .none }
        if case .stream(let previousStream, let consumed) = previous, previousStream === stream {
            let rewound = consumed && reader?.isIdle != false && (stream as? UploadBodyStream)?.rewind() == true
            return .stream(stream, consumed: consumed && !rewound)
        }
        return .stream(stream, consumed: false)
    }

    deinit {
        errorBuffer.deallocate()
    }

    private var task: URLSessionTask? { urlProtocol?.task }

    // MARK: Attempts

    /// Starts the current attempt: adapted by the interceptors first, when the task has any.
    func beginAttempt() {
        guard let interceptor else { return startAttempt() }
        let (request, attempt) = (originalRequest, attempt)
        interceptorWork = Task { [weak self, transport] in
            let adapted: Result<URLRequest, any Error>
            do {
                adapted = .success(try await interceptor.adapt(request, attempt: attempt))
            } catch {
                adapted = .failure(error)
            }
            guard !Task.isCancelled else { return }
            transport.async { [weak self] in self?.adapted(adapted) }
        }
    }

    /// On the transport's queue: the interceptors adapted the attempt's request, or failed the task.
    private func adapted(_ adapted: Result<URLRequest, any Error>) {
        guard !state.isEnded else { return }
        switch adapted {
        case .success(let adapted):
            request = continuation.map { $0.range.request(adapted) } ?? adapted
            body = Self.body(of: adapted, previous: body, reader: bodyReader)
            startAttempt()
        case .failure(let error):
            fail(error)
        }
    }

    private func startAttempt() {
        if reportsAttempts, let task { transport.observer?.curlTask(task, willSend: request, attempt: attempt) }
        guard let easy = makeHandle() else { return }
        transport.startNextHop(self, easy: easy)
    }

    /// Whether the request body can be sent again: not a stream already read that cannot start
    /// over.
    private var canReplayBody: Bool {
        if case .stream(let stream, consumed: true) = body { return (stream as? UploadBodyStream)?.isRewindable ?? false }
        return true
    }

    /// The continuation of the response delivered to the client, when its body was cut.
    private var rangeContinuation: RangeContinuation? {
        guard state.responseDelivered, let response else { return nil }
        return RangeContinuation(response: response, delivered: decodedBodyBytes)
    }

    /// On the transport's queue: the attempt failed with `error`, or ended with a held response (and
    /// `error` when its body was cut); asks the interceptors.
    private func considerRetry(error: URLError?) {
        guard let interceptor else { return conclude(error: error) }
        let range = rangeContinuation
        continuation = range.flatMap { range in error.map { (range, $0) } }
        let context = RetryContext(
            request: request, response: heldResponse, body: heldBody, error: error, attempt: attempt,
            receivedResponseBytes: receivedResponseBytes, canContinue: range != nil, isReusedConnection: hopReusedConnection,
            canReplayBody: canReplayBody, elapsed: Self.seconds(from: transferStart))
        interceptorWork = Task { [weak self, transport] in
            let decision = await interceptor.retry(context)
            guard !Task.isCancelled else { return }
            transport.async { [weak self] in self?.decided(decision, error: error, context: context) }
        }
    }

    /// On the transport's queue: the interceptors decided on the failed attempt.
    private func decided(_ decision: RetryDecision, error: URLError?, context: RetryContext) {
        var decision = decision
        if decision.retries, !canReplayBody {
            decision = error.map { .fail(RetryError.bodyCannotBeReplayed(underlying: $0)) } ?? .doNotRetry
        }
        guard state.decided(retry: decision.retries) else { return }
        switch decision {
        case .retry, .retryAfter:
            let delay = if case .retryAfter(let delay) = decision { delay } else { 0.0 }
            if let task { transport.observer?.curlTask(task, willRetry: context, after: delay) }
            attempt += 1
            heldResponse = nil
            heldBody = Data()
            retryTimer = transport.run(after: delay) { [weak self] in self?.beginAttempt() }
        case .doNotRetry:
            conclude(error: error)
        case .fail(let failure):
            fail(failure)
        }
    }

    /// The attempt's own outcome goes to the client: its held response and body, then the end
    /// (or `error`, when the body was cut), or else `error`.
    private func conclude(error: URLError?) {
        state.ended()
        guard urlProtocol != nil else { return }
        if let heldResponse {
            deliver(heldResponse)
            if !heldBody.isEmpty { heldBody.withUnsafeBytes { deliver($0) } }
            self.heldBody = Data()
            if error == nil { tellClient(ending: true) { $1.urlProtocolDidFinishLoading($0) } }
        }
        if let error { tellClient(ending: true) { $1.urlProtocol($0, didFailWithError: error) } }
        urlProtocol = nil
    }

    /// The held response's body passed `RetryContext.maximumHeldBodyLength`: it goes to the
    /// client after all, with what was held, and the rest streams.
    private func releaseHeldResponse() {
        guard let heldResponse, urlProtocol != nil else { return }
        state.releaseHeld()
        deliver(heldResponse)
        heldBody.withUnsafeBytes { deliver($0) }
        self.heldResponse = nil
        heldBody = Data()
    }

    /// Hands the final response to the task's body sink, if it has one, and to URLSession.
    private func deliver(_ response: HTTPURLResponse) {
        bodySink?.transportDidReceive(response)
        tellClient { $1.urlProtocol($0, didReceive: response, cacheStoragePolicy: .notAllowed) }
    }

    /// Hands body bytes to the task's body sink, or else to URLSession (which needs a `Data`
    /// of its own, as the bytes outlive the call).
    private func deliver(_ bytes: UnsafeRawBufferPointer) {
        if let bodySink {
            bodySink.transportDidReceive(bytes)
        } else {
            let data = Data(bytes)
            tellClient { $1.urlProtocol($0, didLoad: data) }
        }
    }

    /// Posts a call to URLSession's client of the protocol (`CurlTransport.callClient`), which
    /// runs unless `stopLoading` ran first; `ending`: the call ends the task, and the transfer
    /// calls the client no more.
    private func tellClient(ending: Bool = false, _ call: @escaping @Sendable (CurlURLProtocol, any URLProtocolClient) -> Void) {
        guard let urlProtocol else { return }
        if ending { self.urlProtocol = nil }
        let reference = ProtocolReference(urlProtocol: urlProtocol)
        transport.callClient {
            let urlProtocol = reference.urlProtocol
            guard urlProtocol.isLoading, let client = urlProtocol.client else { return }
            if ending { urlProtocol.isLoading = false }
            call(urlProtocol, client)
        }
    }

    // MARK: Lifecycle

    /// A configured easy handle for the current request, or `nil` after failing the task.
    func makeHandle() -> UnsafeMutableRawPointer? {
        // An `http+unix` URL names its socket; otherwise the transport's socket, if any.
        let socketAddress = request.url.flatMap(UnixSocketAddress.init)
        guard let url = socketAddress?.requestURL ?? request.url, ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            fail(URLError(.unsupportedURL, userInfo: failingURLInfo(request.url)))
            return nil
        }
        if case .stream(_, consumed: true) = body {
            fail(URLError(.requestBodyStreamExhausted, userInfo: failingURLInfo(url)))
            return nil
        }
        guard let hop = timeouts.hopMilliseconds(elapsed: Self.seconds(from: transferStart)) else {
            fail(timeouts.error(.total, url: request.url))
            return nil
        }
        guard let easy = transport.takeHandle() else {
            fail(URLError(.unknown, userInfo: failingURLInfo(url)))
            return nil
        }
        if case .stream(let stream, _) = body { startReadingBody(stream) }
        self.easy = easy
        state.handleStarted()
        receivedResponseBytes = false
        headerLines = []
        response = nil
        receivedBodyBytes = 0
        decodedBodyBytes = 0
        errorBuffer.initialize(repeating: 0, count: 256)
        let context = Unmanaged.passUnretained(self).toOpaque()
        setString(CurlOption.url, url.absoluteString)
        let socketPath = socketAddress?.socketPath ?? transport.connection.unixSocketPath
        if let socketPath { setString(CurlOption.unixSocketPath, socketPath) }
        // Every hop names its proxy, or none: libcurl's own reading of the environment is off.
        hopProxy = socketPath == nil ? transport.proxyRoutes.proxy(for: url) : nil
        setString(CurlOption.proxy, hopProxy?.curlURL ?? "")
        hopHandshakes = 0
        evaluation = nil
        proxyFailure = nil
        certificateRequested = false
        framingFault = nil
        hopFetchStart = Date()
        hopRequestEnd = nil
        hopTLS = nil
        if let hopProxy {
            set(CurlOption.suppressConnectHeaders, 1)
            if hopProxy.kind == .https, !hopProxy.anchorCertificates.isEmpty { setBlob(CurlOption.proxyCAInfoBlob, hopProxy.anchorsPEM) }
            if let username = hopProxy.username { setString(CurlOption.proxyUsername, username) }
            if let password = hopProxy.password { setString(CurlOption.proxyPassword, password) }
        }
        if let clientIdentity {
            // Part of libcurl's connection matching: a connection is reused for this identity only.
            setBlob(CurlOption.sslCertificateBlob, clientIdentity.certificateChainPEM)
            setBlob(CurlOption.sslKeyBlob, clientIdentity.privateKeyPEM)
        }
        setString(CurlOption.protocolsString, "http,https")
        setString(CurlOption.redirectProtocolsString, "http,https")
        setString(CurlOption.acceptEncoding, "")
        set(CurlOption.noSignal, 1)
        set(CurlOption.httpVersion, transport.connection.httpVersion.curlValue)
        switch transport.connection.httpVersion {
        case .automatic where url.scheme?.lowercased() == "https":
            // Wait for a connection that may multiplex rather than open another beside it: only
            // where HTTP/2 can be negotiated (TLS with ALPN); over plain http the wait would hold
            // a request behind another's response on the one HTTP/1.1 connection.
            set(CurlOption.pipeWait, 1)
        case .http2PriorKnowledge where url.scheme?.lowercased() == "http":
            // libcurl 7.88 fails every request after the first on a prior-knowledge connection,
            // in turn or multiplexed, with CURLE_HTTP2, "Error in the HTTP2 framing layer" (`curl
            // --http2-prior-knowledge URL URL` shows it against nginx): such a connection
            // carries one request (and the transport does not multiplex).
            set(CurlOption.forbidReuse, 1)
        default:
            break
        }
        set(CurlOption.bufferSize, receiveBufferSize)
        set(CurlOption.uploadBufferSize, 64 * 1024)
        _ = afn_easy_setopt_pointer(easy, CurlOption.errorBuffer, errorBuffer)
        for (option, function) in [(CurlOption.writeFunction, unsafeBitCast(Self.writeCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.headerFunction, unsafeBitCast(Self.headerCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.readFunction, unsafeBitCast(Self.readCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.seekFunction, unsafeBitCast(Self.seekCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.transferInfoFunction, unsafeBitCast(Self.progressCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.sslContextFunction, unsafeBitCast(Self.sslContextCallback, to: UnsafeRawPointer.self)),
                                   (CurlOption.closeSocketFunction, unsafeBitCast(CurlSockets.closeSocketCallback, to: UnsafeRawPointer.self))] {
            _ = afn_easy_setopt_pointer(easy, option, function)
        }
        for option in [CurlOption.writeData, CurlOption.headerData, CurlOption.readData, CurlOption.seekData, CurlOption.transferInfoData,
                       CurlOption.sslContextData] {
            _ = afn_easy_setopt_pointer(easy, option, context)
        }
        _ = afn_easy_setopt_pointer(easy, CurlOption.closeSocketData, transport.socketsContext)
        set(CurlOption.noProgress, 0)
        // The policy replaces OpenSSL's verification (and the host check) in the handshake;
        // without session resumption every connection is verified.
        set(CurlOption.sslVerifyPeer, 1)
        set(CurlOption.sslVerifyHost, 0)
        set(CurlOption.sslSessionIDCache, 0)
        // Whole seconds already (`URLSessionManager.prepared`): libcurl's low-speed time is.
        set(CurlOption.connectTimeoutMilliseconds, hop.connect)
        set(CurlOption.timeoutMilliseconds, hop.total)
        hopStart = .now()
        hopTotalMilliseconds = hop.total
        startIdleTimer()
        configureMethodAndBody(easy)
        return easy
    }

    // MARK: Idle timeout

    /// libcurl has no idle timeout finer than a second (its low-speed limit), so the transport
    /// keeps one timer for its transfers, which checks each against `lastActivity` (updated by
    /// the callbacks).
    private func startIdleTimer() {
        lastActivity = .now()
        if let idle = timeouts.idle { transport.watchIdle(until: lastActivity + idle) }
    }

    /// From the transport's idle timer: fails the transfer when it has been
    /// idle for the idle timeout, or returns when it may be next. A transfer paused for its
    /// consumer is not idle.
    func checkIdle() -> DispatchTime? {
        guard let easy, let idle = timeouts.idle else { return nil }
        let idleFor = Self.seconds(from: lastActivity)
        guard idleFor >= idle, !window.isPaused else {
            return .now() + (window.isPaused ? idle : idle - idleFor)
        }
        transport.remove(easy)
        releaseHandle()
        let error = timeouts.error(.idle, url: request.url)
        switch state.attemptFailed(retriable: interceptor != nil) {
        case .tellClient: fail(error)
        case .considerRetry: considerRetry(error: error)
        case .nothing: break
        }
        return nil
    }

    /// The request's fields libcurl writes itself from the body it sends (lower-case).
    private static let framingFields: Set<String> = ["content-length", "transfer-encoding", "expect"]

    private func configureMethodAndBody(_ easy: UnsafeMutableRawPointer) {
        let method = request.httpMethod?.uppercased() ?? "GET"
        var headers = transport.settings.headers(of: request, excluding: Self.framingFields)
        switch body {
        case .data(let data, _):
            uploadLength = Int64(data.count)
        case .stream:
            uploadLength = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) } ?? -1
        case .none:
            uploadLength = method == "POST" || method == "PUT" || method == "PATCH" ? 0 : -1
        }
        if method == "HEAD" {
            set(CurlOption.noBody, 1)
        } else if uploadLength >= 0 || isStream {
            set(CurlOption.upload, 1)
            _ = afn_easy_setopt_off(easy, CurlOption.inFileSizeLarge, uploadLength)
        }
        if method != "GET", method != "HEAD" { setString(CurlOption.customRequest, method) }
        // URLSession's own protocol gives this type to a POST body that has none.
        if method == "POST", uploadLength != 0, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append((name: "Content-Type", value: "application/x-www-form-urlencoded"))
        }
        var list: UnsafeMutableRawPointer?
        // libcurl reads "Name:" as "remove this header" and spells an empty value "Name;".
        for header in headers { list = afn_slist_append(list, header.value.isEmpty ? header.name + ";" : header.name + ": " + header.value) }
        list = afn_slist_append(list, "Expect:")
        headerList = list
        _ = afn_easy_setopt_pointer(easy, CurlOption.httpHeader, list)
    }

    private var isStream: Bool {
        if case .stream = body { return true }
        return false
    }

    /// The handle finished with `curlCode` and was removed from the multi handle.
    func finish(curlCode: Int32) {
        if let easy, let task {
            var metrics = CurlTransactionInfo(reading: easy).metrics(url: request.url, fetchStart: hopFetchStart, requestEnd: hopRequestEnd, tls: hopTLS)
            metrics.attempt = attempt
            hopReusedConnection = metrics.isReusedConnection
            transport.observer?.curlTask(task, didFinish: metrics)
        }
        if curlCode != CurlCode.ok, proxyFailure == nil, let hopProxy, let easy {
            var connectStatus = 0
            _ = afn_easy_getinfo_long(easy, CurlInfo.connectCode, &connectStatus)
            proxyFailure = ProxyError.classify(curlCode: curlCode, message: String(cString: errorBuffer), connectStatus: connectStatus, proxy: hopProxy, originEvaluated: evaluation != nil)
        }
        releaseHandle()
        if let refusedContinuation {
            // The server sent something other than the rest: the body delivered cannot go on.
            return fail(refusedContinuation)
        }
        let canContinue = interceptor != nil && curlCode != CurlCode.ok && continuation == nil && rangeContinuation != nil
        switch state.hopFinished(curlCode: curlCode, retriable: interceptor != nil, canContinue: canContinue) {
        case .startNextHop(let next):
            request = next
            body = Self.body(of: next, previous: body, reader: bodyReader)
            guard let easy = makeHandle() else { return }
            transport.startNextHop(self, easy: easy)
        case .finishLoading:
            tellClient(ending: true) { $1.urlProtocolDidFinishLoading($0) }
        case .fail(let curlCode):
            let error = error(for: curlCode)
            tellClient(ending: true) { $1.urlProtocol($0, didFailWithError: error) }
        case .failWithoutResponse:
            let error = connectionClosedInHead()
            tellClient(ending: true) { $1.urlProtocol($0, didFailWithError: error) }
        case .considerRetry(let curlCode):
            considerRetry(error: curlCode != CurlCode.ok ? error(for: curlCode)
                : heldResponse == nil ? connectionClosedInHead() : nil)
        case .nothing:
            break
        }
    }

    /// The task was cancelled: stop without calling the client again, nor the interceptors.
    func cancel() {
        state.cancelled()
        interceptorWork?.cancel()
        interceptorWork = nil
        retryTimer?.cancel()
        retryTimer = nil
        if let easy { transport.remove(easy) }
        releaseHandle()
        urlProtocol = nil
    }

    private func releaseHandle() {
        // Kept (stopped) until the next hop, which rewinds the stream only when no read is in flight.
        bodyReader?.stop()
        if let easy { transport.recycle(easy) }
        easy = nil
        if let headerList { afn_slist_free_all(headerList) }
        headerList = nil
    }

    private func fail(_ error: any Error) {
        guard state.failed() else { return }
        tellClient(ending: true) { $1.urlProtocol($0, didFailWithError: error) }
    }

    // MARK: Errors

    private func connectionClosedInHead() -> URLError {
        var userInfo = failingURLInfo(request.url)
        userInfo[NSLocalizedDescriptionKey] = "The connection closed before the end of the response's head"
        return URLError(.networkConnectionLost, userInfo: userInfo)
    }

    private func failingURLInfo(_ url: URL?) -> [String: Any] {
        guard let url else { return [:] }
        return [NSURLErrorFailingURLErrorKey: url]
    }

    private func error(for curlCode: Int32) -> URLError {
        var userInfo = failingURLInfo(request.url)
        if let evaluation, let failure = evaluation.failure {
            userInfo[NSLocalizedDescriptionKey] = "The certificate of \(request.url?.host ?? "the server") was rejected: \(failure)"
            userInfo[TrustEvaluation.errorUserInfoKey] = evaluation
            userInfo[NSUnderlyingErrorKey] = failure
            return URLError(failure.urlErrorCode(pinning: transport.policy.pinningMode != .none), userInfo: userInfo)
        }
        if let proxyFailure {
            userInfo[NSLocalizedDescriptionKey] = proxyFailure.errorDescription
            userInfo[NSUnderlyingErrorKey] = proxyFailure
            return URLError(proxyFailure.urlErrorCode, userInfo: userInfo)
        }
        // libcurl refuses a header line over 100 KiB as out of memory.
        if framingFault == nil, curlCode == CurlCode.outOfMemory, response == nil, receivedResponseBytes { framingFault = .headerLineTooLong }
        if let framingFault {
            userInfo[NSLocalizedDescriptionKey] = "The server's response cannot be read safely: \(framingFault)"
            userInfo[NSUnderlyingErrorKey] = framingFault
            return URLError(.badServerResponse, userInfo: userInfo)
        }
        if curlCode == CurlCode.operationTimedOut {
            let kind = TransferTimeouts.kindOfLibcurlTimeout(hopElapsed: Self.seconds(from: hopStart), hopTotalMilliseconds: hopTotalMilliseconds)
            return timeouts.error(kind, url: request.url)
        }
        let message = String(cString: errorBuffer)
        let curlError = CurlError(code: curlCode, message: message.isEmpty ? String(cString: afn_easy_strerror(curlCode)) : message)
        let code = curlError.urlErrorCode(presentedIdentity: clientIdentity != nil, certificateRequested: certificateRequested)
        userInfo[NSLocalizedDescriptionKey] = switch code {
        case .clientCertificateRequired: "\(request.url?.host ?? "The server") requires a client certificate (\(curlError.message))"
        case .clientCertificateRejected: "\(request.url?.host ?? "The server") rejected the client certificate (\(curlError.message))"
        default: curlError.message
        }
        userInfo[NSUnderlyingErrorKey] = curlError
        return URLError(code, userInfo: userInfo)
    }

    // MARK: Responses

    /// A block of header lines ended. Returns `false` when the transfer must stop (a declared
    /// length over the task's limit: no byte of the body is read).
    private func headerBlockEnded() -> Bool {
        defer { headerLines = [] }
        if let fault = ResponseFraming.fault(in: headerLines) {
            framingFault = fault
            return false
        }
        guard let url = request.url, let head = ResponseHead.parse(headerLines), let response = head.response(for: url) else { return true }
        if hopTLS == nil, let easy, let ssl = afn_easy_tls_ssl(easy) { hopTLS = Self.describe(ssl) }
        transport.settings.storeCookies(head.setCookies, from: url)
        guard state.deliversToClient else { return true }
        // Only a proxy answers 407; over plain HTTP its answer arrives as the response.
        if response.statusCode == 407, let hopProxy {
            proxyFailure = .authenticationRequired(proxy: hopProxy.address)
            return false
        }
        if let next = redirectRequest(after: response) {
            state.redirect(to: next)
        } else if let next = authenticatedRequest(after: response) {
            state.retryAuthenticated(with: next)
        } else if urlProtocol != nil {
            if let pending = continuation {
                // The head of the rest is not the task's: its body goes on where it was cut.
                continuation = nil
                guard pending.range.isContinued(by: response) else {
                    refusedContinuation = pending.error
                    return false
                }
                self.response = response
                return true
            }
            self.response = response
            if let limit = limits.sizeLimit(isDownload: isDownload), response.expectedContentLength > limit.bytes {
                exceeded(limit.limit)
                return false
            }
            if interceptor != nil, response.statusCode >= 400 {
                state.hold()
                heldResponse = response
                return true
            }
            state.deliveredResponse()
            deliver(response)
        }
        return true
    }

    /// The TLS version and cipher suite of the connection `ssl` (read while it is open).
    private static func describe(_ ssl: UnsafeMutableRawPointer) -> (version: String, cipher: String)? {
        var version = [CChar](repeating: 0, count: 32)
        var cipher = [CChar](repeating: 0, count: 128)
        afn_ssl_describe(ssl, &version, version.count, &cipher, cipher.count)
        let text = { (buffer: [CChar]) in String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return version[0] == 0 ? nil : (text(version), text(cipher))
    }

    /// Tells the manager the response exceeded `limit`; the caller then stops the transfer.
    private func exceeded(_ limit: ResponseLimits.Limit) {
        guard let task else { return }
        let declared = response.map(\.expectedContentLength).flatMap { $0 >= 0 ? $0 : nil }
        transport.observer?.curlTask(task, exceeded: limit, declaredLength: declared, response: response)
    }

    /// Counts `length` decoded body bytes; the limit they exceed, if any.
    private func admitBody(_ length: Int) -> ResponseLimits.Limit? {
        decodedBodyBytes += Int64(length)
        if let limit = limits.sizeLimit(isDownload: isDownload), decodedBodyBytes > limit.bytes { return limit.limit }
        // libcurl counts a read's raw bytes only after decoding it into write callbacks, so the
        // raw count may lack up to one receive buffer.
        guard let ratio = limits.maximumDecompressionRatio, decodedBodyBytes > limits.decompressionAllowance else { return nil }
        let ratioExceeded = { (received: Int64) in self.decodedBodyBytes / (received + Int64(self.receiveBufferSize)) > Int64(ratio) }
        guard ratioExceeded(receivedBodyBytes) else { return nil }
        // The progress count lags further (libcurl may read many buffers between progress
        // calls): confirm with the exact count before stopping the transfer.
        var received: Int64 = 0
        if let easy { _ = afn_easy_getinfo_off(easy, CurlInfo.sizeDownload, &received) }
        receivedBodyBytes = received
        return ratioExceeded(received) ? .decompressionRatio(ratio) : nil
    }

    /// The request that follows a redirect `response`, when the manager accepts one.
    private func redirectRequest(after response: HTTPURLResponse) -> URLRequest? {
        guard let task, let target = FollowUpRules.redirectTarget(
            status: response.statusCode, location: response.value(forHTTPHeaderField: "Location"), relativeTo: request.url) else { return nil }
        let proposed = RedirectRule.request(from: request, to: target, status: response.statusCode)
        return transport.observer?.curlTask(task, willRedirectWith: response, to: proposed)
    }

    /// The same request with the manager's credential after a first Basic challenge.
    private func authenticatedRequest(after response: HTTPURLResponse) -> URLRequest? {
        guard let task, FollowUpRules.answersBasicChallenge(
            status: response.statusCode, wwwAuthenticate: response.value(forHTTPHeaderField: "WWW-Authenticate"),
            alreadyAttempted: state.authenticationAttempted, bodyIsStream: isStream),
            let credential = transport.observer?.curlTask(task, credentialFor: response),
            let user = credential.user, let password = credential.password else { return nil }
        return FollowUpRules.authenticated(request, user: user, password: password)
    }

    // MARK: libcurl callbacks

    private static func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer {
        Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    }

    private static let headerCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        let length = size * count
        guard let bytes else { return length }
        let transfer = transfer(context)
        transfer.lastActivity = .now()
        transfer.receivedResponseBytes = true
        // The line end goes as bytes: Foundation's trimming, through NSString, cost a quarter
        // of a small request's instructions (callgrind, BENCHMARKS.md).
        var end = length
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: end), as: UTF8.self)
        if line.isEmpty {
            // A value other than `length` makes libcurl stop the transfer.
            guard transfer.headerBlockEnded() else { return 0 }
        } else if line.hasPrefix("HTTP/") {
            transfer.headerLines = [line]
        } else {
            transfer.headerLines.append(line)
        }
        return length
    }

    private static let writeCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        bytes, size, count, context in
        let length = size * count
        let transfer = transfer(context)
        transfer.lastActivity = .now()
        if transfer.state.isHolding, let bytes, length > 0 { return transfer.hold(bytes, count: length) }
        guard transfer.state.deliversToClient, transfer.urlProtocol != nil, let bytes, length > 0 else { return length }
        guard transfer.bodySink != nil || transfer.window.admit(length) else { return CurlSocket.writeFunctionPause }
        if let limit = transfer.admitBody(length) {
            transfer.exceeded(limit)
            return 0
        }
        transfer.deliver(UnsafeRawBufferPointer(start: bytes, count: length))
        return length
    }

    /// Keeps a chunk of a held error response; past the hold's limit, releases the response.
    private func hold(_ bytes: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        if let limit = admitBody(count) {
            exceeded(limit)
            return 0
        }
        heldBody.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
        if heldBody.count > RetryContext.maximumHeldBodyLength { releaseHeldResponse() }
        return count
    }

    /// Reading resumes after the window paused it; on the transport's queue.
    func resumeReading() {
        lastActivity = .now()
        if let easy { _ = afn_easy_pause(easy, CurlPause.resumeAll) }
    }

    /// Reads `stream` for libcurl from its current position, away from the transport's queue.
    /// The stream counts as consumed from now on: the reader reads ahead of libcurl, so a hop
    /// that sent nothing may still have advanced it.
    private func startReadingBody(_ stream: InputStream) {
        body = .stream(stream, consumed: true)
        let reader = StreamedBodyReader(stream: stream) { [weak self, transport] in
            if let self { transport.resumeSending(self) }
        }
        bodyReader = reader
        isWaitingForBody = false
        reader.start()
    }

    /// Sending resumes after the body stream had no bytes for libcurl; on the transport's
    /// queue. Receiving stays paused if the window paused it.
    func resumeSending() {
        isWaitingForBody = false
        if let easy { _ = afn_easy_pause(easy, window.isPaused ? CurlPause.receive : CurlPause.resumeAll) }
    }

    /// Whether libcurl paused the transfer for its consumer or its body source (its socket is
    /// then unwatched, yet not in the pool).
    var isPaused: Bool { window.isPaused || isWaitingForBody }

    private static let readCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        buffer, size, count, context in
        guard let buffer else { return CurlSocket.readFunctionAbort }
        return transfer(context).readBody(into: UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self), capacity: size * count)
    }

    private func readBody(into buffer: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        lastActivity = .now()
        switch body {
        case .none:
            return 0
        case .data(let data, let offset):
            let count = min(capacity, data.count - offset)
            guard count > 0 else {
                hopRequestEnd = Date()
                return 0
            }
            data.copyBytes(to: buffer, from: (data.startIndex + offset)..<(data.startIndex + offset + count))
            body = .data(data, offset: offset + count)
            return count
        case .stream:
            switch bodyReader?.take(into: UnsafeMutableRawBufferPointer(start: buffer, count: capacity)) {
            case .bytes(let count): return count
            case .end:
                hopRequestEnd = Date()
                return 0
            case .pause:
                isWaitingForBody = true
                return CurlSocket.readFunctionPause
            case .failed, nil: return CurlSocket.readFunctionAbort
            }
        }
    }

    /// libcurl rewinds the body to re-send a request on a fresh connection when a reused one
    /// was closed before any response byte (the keep-alive race): a data body starts over at
    /// any offset; a stream that can be replayed (a file, multipart of files and data) starts
    /// over from its beginning when no read of it is in flight; any other stream cannot
    /// (CURL_SEEKFUNC_CANTSEEK: the task fails, and a retry policy decides).
    private static let seekCallback: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int32 = { context, offset, origin in
        let transfer = transfer(context)
        switch transfer.body {
        case .data(let data, _):
            guard origin == SEEK_SET, offset >= 0, offset <= Int64(data.count) else { return 1 }
            transfer.body = .data(data, offset: Int(offset))
            return 0
        case .stream(let stream, _):
            guard origin == SEEK_SET, offset == 0, let upload = stream as? UploadBodyStream, upload.isRewindable,
                  transfer.bodyReader?.isIdle ?? true else { return 2 }
            transfer.bodyReader?.stop()
            guard upload.rewind() else { return 1 }
            transfer.startReadingBody(stream)
            return 0
        case .none:
            return 2
        }
    }

    private static let progressCallback: @convention(c) (UnsafeMutableRawPointer?, Int64, Int64, Int64, Int64) -> Int32 = {
        context, _, downloaded, _, uploaded in
        let transfer = transfer(context)
        transfer.receivedBodyBytes = downloaded
        guard uploaded > transfer.reportedUpload, let task = transfer.task else { return 0 }
        transfer.reportedUpload = uploaded
        transfer.transport.observer?.curlTask(task, didSendBodyData: uploaded, totalBytesExpectedToSend: transfer.uploadLength)
        return 0
    }

    private static let sslContextCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
        _, sslContext, context in
        guard let sslContext else { return CurlCode.sslConnectError }
        let transfer = transfer(context)
        transfer.hopHandshakes += 1
        if transfer.hopProxy?.kind == .https, transfer.hopHandshakes == 1 { return CurlCode.ok }
        _ = afn_ssl_ctx_set_verify(sslContext, verifyCallback, context)
        _ = afn_ssl_ctx_on_certificate_request(sslContext, certificateRequestCallback, context)
        return CurlCode.ok
    }

    /// The server asked for a client certificate and the transfer has none; the handshake goes
    /// on without (the server decides whether that fails).
    private static let certificateRequestCallback: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
        transfer(context).certificateRequested = true
    }

    /// OpenSSL's whole certificate verification for a connection: the policy's evaluation of
    /// the presented chain for the request's host. A rejection aborts the handshake.
    private static let verifyCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
        storeContext, context in
        guard let storeContext else { return 0 }
        let transfer = transfer(context)
        let sink = ChainSink()
        afn_store_ctx_presented_chain(storeContext, ChainSink.collect, Unmanaged.passUnretained(sink).toOpaque())
        let evaluation: TrustEvaluation
        do {
            evaluation = transfer.transport.policy.evaluation(of: try ServerTrust(derChain: sink.certificates), forDomain: transfer.request.url?.host)
        } catch {
            evaluation = .rejected(.invalidChain(reason: "the server's certificate could not be parsed: \(error)"))
        }
        transfer.evaluation = evaluation
        guard evaluation.isTrusted else {
            afn_store_ctx_reject(storeContext)
            return 0
        }
        return 1
    }

    /// The protocol carried to URLSession's work queue, the only place it is used from there.
    private struct ProtocolReference: @unchecked Sendable {
        // @unchecked: URLProtocol is not Sendable; the reference is only read on the work queue.
        let urlProtocol: CurlURLProtocol
    }

    private func set(_ option: Int32, _ value: Int) {
        _ = afn_easy_setopt_long(easy, option, value)
    }

    private func setBlob(_ option: Int32, _ value: Data) {
        _ = value.withUnsafeBytes { afn_easy_setopt_blob(easy, option, $0.baseAddress, $0.count) }
    }

    private func setString(_ option: Int32, _ value: String) {
        _ = value.withCString { afn_easy_setopt_pointer(easy, option, $0) }
    }
}
