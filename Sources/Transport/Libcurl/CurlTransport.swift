import AFLocking
import AFSecurity
import LibcurlBridge
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// One libcurl multi handle driven by dispatch sources: a read or write source per socket
/// and one timer, no thread per request. Every libcurl call and every transfer's state live on
/// the transport's own serial queue, where the transfers also tell their tasks what happened
/// (`TransferEvents`): no other queue stands between the socket and the task. A task's
/// `resume` and `cancel` post to the transport's queue (`start`, `cancel`).
package final class CurlTransport: TransferCarrier, @unchecked Sendable {
    // @unchecked: `transfers`, `idleHandles`, the timers and their deadlines, `timeoutIsDue`,
    // `endedResponses`, and `multi` while the transport lives, are touched only on `queue`
    // (`assertOnQueue` checks it in debug builds); `sockets` synchronizes itself.

    /// The policy every HTTPS connection of this transport is checked against.
    let policy: SecurityPolicy
    /// What the session's configuration asks of every request.
    let settings: CurlSessionSettings
    /// How far each transfer may read ahead of its consumer (see `ReceiveWindow`).
    let receiveWindowLimit: Int
    /// How every transfer connects (socket, connect timeout, client identity).
    package let connection: ConnectionSettings
    /// What its connections are checked and routed by beyond their URL (`RouteFingerprint`):
    /// `nil` for the system's trust and the automatic proxy.
    package let routeFingerprint: String?
    /// The proxy of each request, resolved when the transport was made.
    let proxyRoutes: ProxyRoutes
    /// Answers every hop in place of libcurl, when the manager is stubbed.
    let stub: TransportStub?
    /// The time of the transfers' timeouts, retry waits and stub delays: the stub's clock when
    /// it has one (a test's), else the system's.
    let clock: any TransportClock
    /// libcurl's multi handle; `nil` for a stubbed transport, which answers every hop itself and
    /// so works where libcurl cannot be loaded or used.
    private let multi: UnsafeMutableRawPointer?
    private let sockets: CurlSockets
    private let queue = DispatchQueue(label: "AFNetworking.curl-transport")
    private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    /// libcurl's timer (`CURLMOPT_TIMERFUNCTION`): one source, re-armed at each deadline libcurl
    /// gives. A source made per call (2.5 a request with the idle timers) woke libdispatch's
    /// manager thread each time (`afn-benchmarks`, BENCHMARKS.md).
    private var timer: DispatchSourceTimer?
    /// When `timer` fires, or `nil` when it is not armed.
    private var timerDeadline: DispatchTime?
    /// libcurl asked for its timeouts to run at once (0 ms): they run when the libcurl call
    /// that asked has returned (`settle`), never inside libcurl's callback, and without a timer.
    private var timeoutIsDue = false
    /// Transfers whose final response ended while libcurl may still run them (`responseEnded`).
    private var endedResponses: [CurlTransfer] = []
    /// One timer for the idle timeouts of all transfers, armed for the earliest deadline; when
    /// it fires every transfer is checked and it is armed for the next. A transfer that ends
    /// early leaves at most one check that finds nothing.
    private var idleTimer: DispatchSourceTimer?
    private var idleDeadline: DispatchTime?
    /// Easy handles of finished transfers, reset for the next ones: a new handle cost libcurl
    /// 10,000 instructions and its clean-up 5,000 of a small request (callgrind, BENCHMARKS.md).
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private static let idleHandleLimit = 32

    /// A transport for `policy` and the session `configuration`, storing the cookies of
    /// responses in `cookieJar`, its hops answered by `stub` instead of libcurl when given (then
    /// without libcurl); throws the `TransportError` that says why when libcurl cannot be used
    /// (`unavailable`), or refuses a setting of the multi handle.
    package init(
        policy: SecurityPolicy, configuration: URLSessionConfiguration,
        receiveWindowLimit: Int = ReceiveWindow.defaultLimit, connection: ConnectionSettings = ConnectionSettings(),
        cookieJar: (any ResponseCookieStore)? = nil, stub: TransportStub? = nil
    ) throws {
        if stub == nil, let error = Self.unavailableError { throw error }
        let multi = stub == nil ? afn_multi_init() : nil
        if stub == nil, multi == nil { throw TransportError.libcurlUnavailable(reason: "curl_multi_init failed") }
        self.policy = policy
        settings = CurlSessionSettings(configuration, cookieJar: cookieJar)
        self.receiveWindowLimit = receiveWindowLimit
        self.connection = connection
        routeFingerprint = RouteFingerprint.of(policy: policy, proxy: connection.proxy)
        self.stub = stub
        clock = stub?.clock ?? SystemClock.shared
        proxyRoutes = ProxyRoutes.resolve(
            connection.proxy, dictionary: configuration.connectionProxyDictionary, environment: ProcessInfo.processInfo.environment)
        self.multi = multi
        sockets = CurlSockets(queue: queue)
        clock.runs(on: queue)
        guard let multi else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var refused: (option: String, code: Int32)?
        let check = { (name: String, code: Int32) in if code != CurlCode.ok, refused == nil { refused = (name, code) } }
        check("CURLMOPT_SOCKETDATA", afn_multi_setopt_pointer(multi, CurlMultiOption.socketData, context))
        check("CURLMOPT_SOCKETFUNCTION",
              afn_multi_setopt_pointer(multi, CurlMultiOption.socketFunction, unsafeBitCast(Self.socketCallback, to: UnsafeRawPointer.self)))
        check("CURLMOPT_TIMERDATA", afn_multi_setopt_pointer(multi, CurlMultiOption.timerData, context))
        check("CURLMOPT_TIMERFUNCTION",
              afn_multi_setopt_pointer(multi, CurlMultiOption.timerFunction, unsafeBitCast(Self.timerCallback, to: UnsafeRawPointer.self)))
        check("CURLMOPT_MAX_HOST_CONNECTIONS", afn_multi_setopt_long(multi, CurlMultiOption.maxHostConnections, settings.maximumConnectionsPerHost))
        // libcurl 7.88 fails a stream added to a busy HTTP/2 prior-knowledge connection with
        // CURLE_HTTP2 (see `CurlTransfer.makeHandle`): no multiplexing with prior knowledge.
        if connection.httpVersion == .http2PriorKnowledge { check("CURLMOPT_PIPELINING", afn_multi_setopt_long(multi, CurlMultiOption.pipelining, 0)) }
        if let refused {
            // The deinit releases the multi handle, as for any transport.
            throw TransportError.optionRefused(option: refused.option, requires: "libcurl 7.30.0 or later", libcurl: Self.libcurlVersion, code: refused.code)
        }
    }

    deinit {
        timer?.cancel()
        idleTimer?.cancel()
        guard let multi else { return }
        _ = afn_multi_setopt_pointer(multi, CurlMultiOption.socketFunction, nil)
        _ = afn_multi_setopt_pointer(multi, CurlMultiOption.timerFunction, nil)
        // No transfer is left (each retains the transport while it runs); what remains are
        // idle connections. They are closed on the transport's queue, after every socket or timer
        // event already queued for this multi handle (their handlers find no transport), and
        // through `sockets`, which the closure keeps until libcurl has closed them all. The
        // thread that dropped the last reference (a delegate queue, a dispatch worker) never
        // runs libcurl's or OpenSSL's teardown itself.
        let remains = Remains(multi: multi, idleHandles: idleHandles, sockets: sockets)
        queue.async { remains.release() }
    }

    /// The socket bookkeeping libcurl's close-socket callback needs, for `CurlTransfer`.
    var socketsContext: UnsafeMutableRawPointer { Unmanaged.passUnretained(sockets).toOpaque() }

    // MARK: Transfers, on the transport's queue

    /// A transfer of `request` on this transport, not started.
    package func makeTransfer(of request: URLRequest, for events: any TransferEvents, options: TransferOptions) -> any CarriedTransfer {
        CurlTransfer(request: request, transport: self, events: events, options: options)
    }

    /// Starts `transfer`; from any thread, without waiting.
    package func start(_ transfer: CurlTransfer) {
        async { transfer.start() }
    }

    /// Stops `transfer` and ends its task with `error` (a cancellation) unless it had ended;
    /// from any thread, without waiting.
    package func cancel(_ transfer: CurlTransfer, with error: any Error & Sendable) {
        async { transfer.stop(with: error) }
    }

    /// Suspends or resumes reading the response of `transfer` for its task; from any thread,
    /// without waiting (a task calls it, as `start` and `cancel`, under its record's lock, so
    /// that its actions reach the queue in the order it decided them).
    package func setSuspended(_ suspended: Bool, _ transfer: CurlTransfer) {
        async { suspended ? transfer.suspend() : transfer.resumeAfterSuspension() }
    }

    /// Adds the next request (redirect or authentication) of a running transfer.
    func startNextHop(_ transfer: CurlTransfer, easy: UnsafeMutableRawPointer) {
        assertOnQueue()
        transfers[easy] = transfer
        _ = afn_multi_add_handle(multi, easy)
    }

    /// An easy handle in its initial state: a reset one of an earlier transfer, or a new one.
    func takeHandle() -> UnsafeMutableRawPointer? {
        assertOnQueue()
        return idleHandles.popLast() ?? afn_easy_init()
    }

    /// Takes back the handle of a transfer that ended (removed from the multi handle), to reuse
    /// unless `reusable` is false.
    func recycle(_ easy: UnsafeMutableRawPointer, reusable: Bool = true) {
        assertOnQueue()
        guard reusable, idleHandles.count < Self.idleHandleLimit else { return afn_easy_cleanup(easy) }
        afn_easy_reset(easy)
        idleHandles.append(easy)
    }

    /// Removes the transfer of `easy` from the multi handle.
    func remove(_ easy: UnsafeMutableRawPointer) {
        assertOnQueue()
        _ = afn_multi_remove_handle(multi, easy)
        transfers[easy] = nil
    }

    /// `transfer`'s final response ended (`ResponseEnd`): once the libcurl call under way has
    /// returned, `settle` ends the transfer unless libcurl did.
    func responseEnded(_ transfer: CurlTransfer) {
        endedResponses.append(transfer)
    }

    /// Resumes reading for `transfer`, paused by its receive window; from any thread.
    func resumeReading(_ transfer: CurlTransfer) {
        async { transfer.resumeReading() }
    }

    /// Resumes sending for `transfer`, paused while its body stream had no bytes; from any thread.
    func resumeSending(_ transfer: CurlTransfer) {
        async { transfer.resumeSending() }
    }

    /// Runs `body` on the transport's queue, then what its libcurl calls left to do; from any
    /// thread, without waiting.
    package func async(_ body: @escaping @Sendable () -> Void) {
        queue.async { [weak self] in
            body()
            self?.settle()
        }
    }

    /// Runs `body` on the transport's queue after `delay` seconds of its clock (at once for 0),
    /// unless the returned timer is cancelled first; on the transport's queue.
    func run(after delay: TimeInterval, _ body: @escaping () -> Void) -> any TransportTimer {
        let timer = clock.makeTimer(on: queue) { [weak self] in
            body()
            self?.settle()
        }
        timer.schedule(at: clock.now() + max(0, delay))
        return timer
    }

    /// A one-shot dispatch timer that runs `body` on the transport's queue; the caller schedules
    /// and cancels it. For libcurl's timer and the idle checks of libcurl's hops, which keep
    /// the system's time.
    private func makeTimer(_ body: @escaping () -> Void) -> DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in
            body()
            self?.settle()
        }
        return timer
    }

    /// Checks the transfers for idleness by `deadline` (when the idle timer is armed later).
    func watchIdle(until deadline: DispatchTime) {
        assertOnQueue()
        if let idleDeadline, idleDeadline <= deadline { return }
        idleDeadline = deadline
        made(&idleTimer) { [weak self] in self?.checkIdleTransfers() }.schedule(deadline: deadline, leeway: .milliseconds(5))
    }

    /// `timer`, or a new one (`makeTimer`, resumed, not scheduled) stored there to run `body`.
    private func made(_ timer: inout DispatchSourceTimer?, running body: @escaping () -> Void) -> DispatchSourceTimer {
        if let timer { return timer }
        let new = makeTimer(body)
        new.resume()
        timer = new
        return new
    }

    private func checkIdleTransfers() {
        idleDeadline = nil
        for transfer in transfers.values {
            if let next = transfer.checkIdle() { watchIdle(until: next) }
        }
    }

    /// Ends every event and call on the transport's queue: hands finished transfers their
    /// results, runs the timeouts libcurl asked to run at once (a few rounds here, then from the
    /// timer).
    private func settle() {
        finishDoneTransfers()
        for _ in 0..<4 where timeoutIsDue {
            timeoutIsDue = false
            var running: Int32 = 0
            _ = afn_multi_socket_action(multi, CurlSocket.timeout, 0, &running)
            finishDoneTransfers()
        }
        // Before the timer is armed: ending a transfer may start its next hop.
        let ended = endedResponses
        endedResponses = []
        for transfer in ended {
            if let easy = transfer.easy, transfers[easy] === transfer { transfer.endAtResponseEnd() }
        }
        if timeoutIsDue {
            timeoutIsDue = false
            arm(deadline: .now())
        }
    }

    private func finishDoneTransfers() {
        var easy: UnsafeMutableRawPointer?
        var result: Int32 = 0
        // A stubbed transport has no multi handle: its hops end without libcurl.
        guard let multi else { return }
        while afn_multi_next_done(multi, &easy, &result) == 1 {
            guard let easy, let transfer = transfers[easy] else { continue }
            remove(easy)
            transfer.finish(curlCode: result)
        }
    }

    // MARK: Events

    /// Traps in debug builds when called off the transport's queue, where every libcurl call of
    /// this transport belongs.
    func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }

    private func socketAction(_ socket: Int32, events: Int32) {
        var running: Int32 = 0
        _ = afn_multi_socket_action(multi, socket, events, &running)
        settle()
    }

    private static let socketCallback: @convention(c) (UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
        easy, socket, what, context, _ in
        guard let context else { return 0 }
        let transport = Unmanaged<CurlTransport>.fromOpaque(context).takeUnretainedValue()
        if what == CurlSocket.pollRemove {
            if let easy, let transfer = transport.transfers[easy] { transfer.connectionUnwatched(socket) }
            // libcurl stops watching a connection it pools, and one whose transfer is paused for
            // its consumer or its body source, or is between two of libcurl's steps (7.88 removes
            // the socket of a transfer it resumes and re-adds it later); and a hop waiting for a
            // connection may take a pooled one and send its request before libcurl watches the
            // socket again. So bytes on an unwatched socket may be a transfer's while any runs;
            // with none running, the connection sits unused in the pool. (libcurl itself drops
            // a pooled connection with bytes waiting before it reuses it.)
            transport.sockets.unwatch(socket) { [weak transport] in !(transport?.transfers.isEmpty ?? true) }
        } else {
            transport.sockets.watch(socket, read: what & CurlSocket.pollIn != 0, write: what & CurlSocket.pollOut != 0) { [weak transport] events in
                transport?.socketAction(socket, events: events)
            }
        }
        return 0
    }

    private static let timerCallback: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32 = {
        _, milliseconds, context in
        guard let context else { return 0 }
        Unmanaged<CurlTransport>.fromOpaque(context).takeUnretainedValue().schedule(afterMilliseconds: milliseconds)
        return 0
    }

    /// libcurl's timer callback, inside a libcurl call on the transport's queue: -1 removes the timer
    /// (left armed: a timeout action with nothing due does nothing), 0 asks for an action at once.
    private func schedule(afterMilliseconds milliseconds: Int) {
        switch milliseconds {
        case ..<0: break
        case 0: timeoutIsDue = true
        default: arm(deadline: .now() + .milliseconds(milliseconds))
        }
    }

    /// Arms libcurl's timer for `deadline` unless it fires earlier already: libcurl moves its
    /// deadline with every transfer that starts or ends (once a small request), and each re-arm
    /// wakes libdispatch's manager thread. An early fire finds nothing due and reads libcurl's
    /// deadline then (libcurl reports a deadline to the callback only when it changes).
    private func arm(deadline: DispatchTime) {
        if let timerDeadline, timerDeadline <= deadline { return }
        timerDeadline = deadline
        made(&timer) { [weak self] in self?.timerFired() }.schedule(deadline: deadline)
    }

    /// libcurl's timer fired (`makeTimer` settles after it).
    private func timerFired() {
        timerDeadline = nil
        var running: Int32 = 0
        _ = afn_multi_socket_action(multi, CurlSocket.timeout, 0, &running)
        var milliseconds = -1
        _ = afn_multi_timeout(multi, &milliseconds)
        schedule(afterMilliseconds: milliseconds)
    }
}

/// What a transport leaves to be released after its deinit: the multi handle with its idle
/// connections, and the socket watches libcurl closes them through.
private struct Remains: @unchecked Sendable {
    // @unchecked: handed from the deinit to the transport's queue, then used there alone.
    let multi: UnsafeMutableRawPointer
    let idleHandles: [UnsafeMutableRawPointer]
    let sockets: CurlSockets

    func release() {
        idleHandles.forEach(afn_easy_cleanup)
        afn_multi_cleanup(multi)
        withExtendedLifetime(sockets) {}
    }
}
