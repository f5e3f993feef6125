import AFSecurity
import LibcurlBridge
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One task's transfer on libcurl: its lifecycle is a `TransferStateMachine`, whose actions this
/// class carries out: each hop an easy handle (`CurlTransfer+Handle`), its request body sent
/// (`+Sending`), its response read (`+Receiving`), the server's chain checked in the handshake
/// (`+TLS`), and the interceptors asked between attempts (`+Attempts`). Lives on its
/// transport's queue, where it tells the task (`TransferEvents`) everything, in order.
package final class CurlTransfer: @unchecked Sendable {
    // @unchecked: every field is touched only on the transport's queue (made by the task's
    // `resume`, then handed over by `CurlTransport.start`; libcurl callbacks run inside the
    // transport's calls there).

    typealias StateMachine = TransferStateMachine<URLRequest, HTTPURLResponse, URLError, PendingWork>

    /// What runs between hops, kept by the state machine's phase.
    enum PendingWork {
        /// The interceptors adapting a request or deciding on an attempt.
        case interceptors(Task<Void, Never>)
        /// The wait before a retry.
        case retryTimer(any TransportTimer)

        func cancel() {
            switch self {
            case .interceptors(let task): task.cancel()
            case .retryTimer(let timer): timer.cancel()
            }
        }
    }

    /// The request body of the current hop.
    enum Body {
        case none
        case data(Data, offset: Int)
        case stream(InputStream, consumed: Bool)
    }

    package let transport: CurlTransport
    /// The task's side of the transfer (its `TaskDelegate`), and what it asked when it started.
    /// Let go of once the task was told the end, which is how the end is recorded on this side
    /// of the boundary: the task hears nothing more (`isEnded`).
    private(set) weak var events: (any TransferEvents)?
    let options: TransferOptions
    /// Presented when a server asks for a client certificate; the task's own or the transport's.
    let clientIdentity: ClientIdentity?
    /// The connect, idle and total timeouts; the total counts from `transferStart`.
    let timeouts: TransferTimeouts
    let transferStart: DispatchTime
    /// The request the task started with: each attempt starts from it.
    let originalRequest: URLRequest
    /// The current hop's request, and its body.
    var request: URLRequest
    var body: Body = .none
    /// Whether the task was told the end (or cancelled the transfer, or is gone): it hears
    /// nothing more.
    var isEnded: Bool { events == nil }
    var machine: StateMachine
    /// What the current hop has learnt; made fresh by each hop.
    var hop: CurlHop
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutableRawPointer?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
    /// The hop's body stream, read away from the transport's queue.
    var bodyReader: StreamedBodyReader?
    /// Whether the body's next chunk is taken now, or reading pauses (for the task's
    /// suspension or the consumer's window).
    var receiveFlow = ReceiveFlow()
    /// The most request body bytes reported sent, over all hops.
    var reportedUpload: Int64 = 0
    /// The timer of the total timeout between hops, when the task has one (`start`), and
    /// whether it ran out while a hop ran.
    var deadline: (any TransportTimer)?
    var isPastDeadline = false
    /// The last byte received or sent; the transport's idle timer compares it with the idle timeout.
    var lastActivity: DispatchTime
    /// The stub's reply being played as the current hop, when the transport is stubbed.
    var stubPlayback: StubPlayback?
    /// Whether an event the state machine rejects stops the process (debug builds: a defect to
    /// find where it happens) or only fails the task with the `TransferStateError` (release
    /// builds, and the tests of what they do).
    var assertsOnRejectedEvents = CurlTransfer.isDebugBuild
    /// Whether the last hop went on a reused connection.
    var lastHopReusedConnection = false
    /// The body delivered, continued by the next attempt when one was cut.
    var bodyContinuation = BodyContinuation()
    lazy var window = ReceiveWindow(limit: transport.receiveWindowLimit) { [weak self] in
        guard let self else { return }
        transport.resumeReading(self)
    }

    /// libcurl's receive buffer: the most raw bytes one read decodes into write callbacks. A
    /// download to a file keeps the 128 KiB bulk transfers were tuned with; a body kept in memory
    /// reads 64 KiB, since a read is decoded whole before libcurl counts it, so a compression
    /// bomb is stopped only after up to the ratio limit times one read (a 1 GiB bomb peaked at
    /// 42.8-46.5 MiB, against 48.3-59.7 MiB), while 80 x 10 MB bodies in memory ran at the same
    /// share of URLSession's speed within the noise (0.82-0.93, against 0.83-0.93).
    var receiveBufferSize: Int { options.isDownload ? 128 * 1024 : 64 * 1024 }

    /// A transfer of `request` on `transport` for the task whose side is `events`, asking
    /// `options` of it (`CurlTransport.makeTransfer`); `CurlTransport.start` starts it.
    init(request: URLRequest, transport: CurlTransport, events: any TransferEvents, options: TransferOptions) {
        self.request = request
        originalRequest = request
        self.transport = transport
        transferStart = transport.clock.now()
        lastActivity = transferStart
        hop = CurlHop(proxy: nil, serverName: nil, totalMilliseconds: 0, start: transferStart)
        self.events = events
        self.options = options
        clientIdentity = options.clientIdentity ?? transport.connection.clientIdentity
        machine = StateMachine(hasInterceptors: options.interceptor != nil, maximumHeldBodyLength: RetryContext.maximumHeldBodyLength)
        body = Self.body(of: request, previous: .none)
        // A stubbed hop never hands the buffer to libcurl, yet its errors read it.
        errorBuffer.initialize(repeating: 0, count: 256)
        timeouts = TransferTimeouts(connect: transport.connection.connectTimeout ?? request.timeoutInterval, idle: request.timeoutInterval,
                                    total: options.totalTimeout)
        if options.readsThroughWindow { self.events?.transferReceivesBody(through: window) }
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// Seconds from `start` to now, on the transport's clock.
    func seconds(since start: DispatchTime) -> TimeInterval {
        transport.clock.seconds(since: start)
    }

    /// The body `request` sends; a stream the previous request already read starts over when
    /// it can be replayed (`ReplayableBodyStream.rewind()`) and no read of it is in flight
    /// (`reader`, stopped, may still be in a blocking read, which is waited for, or waiting on
    /// its source), and otherwise stays consumed.
    static func body(of request: URLRequest, previous: Body, reader: StreamedBodyReader? = nil) -> Body {
        if let data = request.httpBody { return .data(data, offset: 0) }
        guard let stream = request.httpBodyStream else { return .none }
        if case .stream(let previousStream, let consumed) = previous, previousStream === stream {
            let rewound = consumed && reader?.waitUntilIdle() != false && (stream as? any ReplayableBodyStream)?.rewind() == true
            return .stream(stream, consumed: consumed && !rewound)
        }
        return .stream(stream, consumed: false)
    }

    // MARK: Events from the transport

    /// Starts the transfer; on the transport's queue. With interceptors and a total timeout, a
    /// timer watches the deadline between hops too (the interceptors' work, a retry's wait):
    /// without interceptors one hop follows another at once, and each hop has its own timeout.
    func start() {
        // A task cancelled before it started has ended: no deadline is left to watch.
        if !isEnded, machine.hasInterceptors, let total = timeouts.total {
            deadline = transport.run(after: total - seconds(since: transferStart)) { [weak self] in self?.totalTimeoutElapsed() }
        }
        perform(machine.start())
    }

    /// The total timeout ran out. A running hop ends itself at that deadline (libcurl's timeout,
    /// the stub's watchdog: a millisecond later at most), with its metrics, and its failure then
    /// ends the task (`endHop`); between hops the transfer stops here.
    private func totalTimeoutElapsed() {
        guard !isEnded else { return }
        if easy != nil || stubPlayback != nil { return isPastDeadline = true }
        stop(with: timeouts.error(.total, url: request.url))
    }

    /// The handle finished with `curlCode` and was removed from the multi handle.
    func finish(curlCode: Int32) {
        if let easy {
            var metrics = CurlTransactionInfo(reading: easy).metrics(
                url: request.url, fetchStart: hop.fetchStart, requestEnd: hop.requestEnd, tls: hop.tls)
            metrics.attempt = machine.attempt
            lastHopReusedConnection = metrics.isReusedConnection
            events?.transferDidFinish(metrics)
            if curlCode != CurlCode.ok, hop.proxyFailure == nil, let proxy = hop.proxy {
                var connectStatus = 0
                _ = afn_easy_getinfo_long(easy, CurlInfo.connectCode, &connectStatus)
                hop.proxyFailure = ProxyError.classify(
                    curlCode: curlCode, message: String(cString: errorBuffer), connectStatus: connectStatus, proxy: proxy,
                    originEvaluated: hop.evaluation != nil)
            }
        }
        let failure = curlCode == CurlCode.ok ? nil : error(for: curlCode)
        if failure == nil { receivedTrailers() }
        releaseHandle()
        endHop(failure: failure)
    }

    /// The hop ended, with `failure` when it failed (its handle, if any, already released).
    func endHop(failure: URLError?) {
        if let refused = bodyContinuation.takeRefusal() {
            // The server sent something other than the rest: the body delivered cannot go on.
            return perform(machine.failed(refused))
        }
        let canContinue = machine.hasInterceptors && failure != nil && !bodyContinuation.isPending && rangeContinuation != nil
        // A response past a limit (which the task reports), or a hop past the total timeout,
        // ends the task: no interceptor retries it, nor continues its body.
        perform(machine.hopFinished(
            failure: failure, closedInHead: TransferErrorMapping.connectionClosedInHead(url: request.url), canContinue: canContinue,
            endsTask: hop.exceededLimit != nil || isPastDeadline))
    }

    /// The task was cancelled: stop without asking the interceptors, and end the task with
    /// `error` unless it had ended.
    func stop(with error: any Error) {
        perform(machine.cancelled())
        end(with: error)
    }

    /// The task suspended: the body is read no further until it resumes (its next chunk pauses
    /// reading, as a full receive window does).
    func suspend() {
        receiveFlow.suspend()
    }

    /// The task resumed after `suspend`.
    func resumeAfterSuspension() {
        if receiveFlow.taskResumed() { resumeReading() }
    }

    // MARK: Actions

    /// Carries out what the state machine returned.
    func perform(_ action: StateMachine.Action) {
        switch action {
        case .none:
            break
        case .adapt(let attempt):
            adapt(attempt: attempt)
        case .startHop(let next):
            if let next {
                request = next
                body = Self.body(of: next, previous: body, reader: bodyReader)
            }
            if options.reportsAttempts, let events {
                request = events.transfer(willSend: request, attempt: machine.attempt, followsRedirect: next != nil)
            }
            startHop()
        case .decide(let attempt, let outcome):
            decide(attempt: attempt, outcome)
        case .scheduleRetry(let delay):
            keep(.retryTimer(transport.run(after: delay) { [weak self] in
                guard let self else { return }
                perform(machine.retryTimerFired())
            }))
        case .finish:
            end(with: nil)
        case .fail(let error):
            end(with: error)
        case .conclude(let outcome):
            conclude(outcome)
        case .stop(let pending):
            pending?.cancel()
            stubPlayback?.stop()
            stubPlayback = nil
            if let easy { transport.remove(easy) }
            releaseHandle()
        case .reject(let error, let pending):
            perform(.stop(pending: pending))
            if assertsOnRejectedEvents { assertionFailure("\(error.errorDescription ?? "")") }
            end(with: error)
        }
    }

    #if DEBUG
    static let isDebugBuild = true
    #else
    static let isDebugBuild = false
    #endif

    /// Hands `work` to the phase that waits for it, or cancels it when none does.
    func keep(_ work: PendingWork) {
        if !machine.began(work) { work.cancel() }
    }

    /// The attempt's own outcome goes to the client: its held response and body, then the end,
    /// or the failure (after the held part, when the body was cut).
    private func conclude(_ outcome: StateMachine.Outcome) {
        if let held = outcome.held {
            deliver(held.response)
            if !held.body.isEmpty { held.body.withUnsafeBytes { deliver($0) } }
            if outcome.failure == nil {
                if let trailers = held.trailers { events?.transfer(receivedTrailers: trailers) }
                end(with: nil)
            }
        }
        if let error = outcome.failure { end(with: error) }
    }

    /// Hands the final response to the task.
    func deliver(_ response: HTTPURLResponse) {
        if !isEnded { events?.transferDidReceive(response) }
    }

    /// Hands body bytes to the task, which copies what it keeps during the call.
    func deliver(_ bytes: UnsafeRawBufferPointer) {
        if !isEnded { events?.transferDidReceive(bytes) }
    }

    /// Tells the task the end (`error`, or `nil` for success), once.
    private func end(with error: (any Error)?) {
        deadline?.cancel()
        guard let events else { return }
        self.events = nil
        events.transferDidComplete(with: error)
    }

    /// The error a hop that ended with libcurl's `curlCode` fails with.
    func error(for curlCode: Int32) -> URLError {
        var message = String(cString: errorBuffer)
        if message.isEmpty { message = String(cString: afn_easy_strerror(curlCode)) }
        if message.isEmpty { message = "libcurl error \(curlCode)" }
        var mapping = TransferErrorMapping(url: request.url, curlCode: curlCode, message: message)
        mapping.evaluation = hop.evaluation
        mapping.untrustedConnection = hop.untrustedConnection
        mapping.pins = transport.policy.pinningMode != .none
        mapping.proxyFailure = hop.proxyFailure
        mapping.framingFault = hop.framingFault
        mapping.receivedResponse = hop.response != nil
        mapping.receivedResponseBytes = hop.receivedResponseBytes
        if curlCode == CurlCode.operationTimedOut {
            let kind = TransferTimeouts.kindOfLibcurlTimeout(hopElapsed: seconds(since: hop.start), hopTotalMilliseconds: hop.totalMilliseconds)
            mapping.timeout = (kind, timeouts)
        }
        mapping.presentedIdentity = clientIdentity != nil
        mapping.certificateRequested = hop.certificateRequested
        return mapping.error
    }

    /// The transfer behind a libcurl callback's context pointer.
    static func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer {
        Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    }
}

/// The task's side of the boundary: each action handed to the transport's queue.
extension CurlTransfer: CarriedTransfer {
    package func start(suspended: Bool) {
        transport.start(self)
        if suspended { transport.setSuspended(true, self) }
    }

    package func setSuspended(_ suspended: Bool) {
        transport.setSuspended(suspended, self)
    }

    package func cancel(with error: any Error & Sendable) {
        transport.cancel(self, with: error)
    }
}
