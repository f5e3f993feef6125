import AFLocking
import AFSecurity
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything about one task: its body (accumulated, or written to a file for downloads), its
/// upload and download `Progress`, its handlers, its metrics, and the Linux failures the
/// manager turns into typed errors. The manager's URLSession delegate methods forward each
/// event here from the serial delegate queue; handlers run on the task's delivery queue.
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
    private enum Failure {
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

    /// One direction's progress: the counts, and the `Progress` object once someone needs it (a
    /// progress handler, `uploadProgress(for:)`): two objects with their handlers cost 9,000
    /// instructions of a small request that nobody watched.
    private struct ProgressCounts {
        var completed: Int64 = 0
        var total: Int64 = 0
        var object: Progress?

        mutating func set(completed: Int64, total: Int64? = nil) {
            self.completed = completed
            if let total { self.total = total }
            if let object {
                if let total { object.totalUnitCount = total }
                object.completedUnitCount = completed
            }
        }
    }

    private struct State {
        var data = Data()
        var upload = ProgressCounts()
        var download = ProgressCounts()
        var response: HTTPURLResponse?
        var responseStart: Date?
        var transactions: [TransactionMetrics] = []
        var redirectCount = 0
        var endedAtRedirect = false
        var sendsCredentialsAcrossOrigins: Bool?
        var carriesJarCookies = false
        var requestCarriesJarCookies = false
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        /// The first failure the manager saw itself, which decides the task's error.
        var failure: Failure?
        var writer: DownloadWriter?
        var resumeDataHandler: (@Sendable (Data?) -> Void)?
        var pendingDeliveries: Set<Direction> = []
        var completed = false
        var receiveWindow: CurlReceiveWindow?
        var limits: ResponseLimits
        var totalTimeout: TimeInterval?
        var clientIdentity: ClientIdentity?
        var interceptor: (any RequestInterceptor)?

        /// Records `failure` unless one was recorded before.
        mutating func record(_ failure: Failure) {
            if self.failure == nil { self.failure = failure }
        }
    }

    let task: URLSessionTask
    let kind: Kind
    let session: URLSession
    /// The manager's `CurlTransport` carrying the task, if libcurl carries it.
    let curlTransport: CurlTransport?
    /// The manager, while it lives (it does while it has tasks: `TaskDelegateTable`).
    private let managerReference: WeakManager
    let responseSerializer: any URLResponseSerialization
    let credential: URLCredential?
    let bodyStream: UploadBodyStream?
    /// The upload's length when URLSession cannot know it (stream bodies).
    let knownUploadLength: Int64?
    let taskStart = Date()
    /// The manager's event monitors when the task was created.
    let monitors: [any EventMonitor]
    /// Whether the libcurl transport hands this task's response and body straight to it
    /// (`CurlBodySink`), on the transport's queue: a body kept in memory or written to the
    /// download's file there, with no override that wants URLSession's response, data or
    /// written-data callbacks. URLSession then reports the response and the end only.
    let receivesBodyFromTransport: Bool
    private let handlers: Handlers
    /// Serial, so that progress reaches the handlers in order and before the completion;
    /// it targets the manager's completion queue, or its processing queue when there is none.
    private let deliveryQueue: DispatchQueue
    private let hasCompletionQueue: Bool
    /// The manager's `completionGroup` when the task was created, like its completion queue.
    private let completionGroup: DispatchGroup
    private let state: Locked<State>

    init(
        task: URLSessionTask, kind: Kind, responseSerializer: any URLResponseSerialization, credential: URLCredential?,
        bodyStream: UploadBodyStream?, knownUploadLength: Int64?, handlers: Handlers, writer: DownloadWriter?,
        session: URLSession, manager: URLSessionManager, curlTransport: CurlTransport?, completionQueue: DispatchQueue?, completionGroup: DispatchGroup,
        processingQueue: DispatchQueue, limits: ResponseLimits, totalTimeout: TimeInterval?,
        interceptor: (any RequestInterceptor)?, monitors: [any EventMonitor], receivesBodyFromTransport: Bool
    ) {
        self.task = task
        self.kind = kind
        self.session = session
        self.curlTransport = curlTransport
        managerReference = WeakManager(manager: manager)
        self.responseSerializer = responseSerializer
        self.credential = credential
        self.bodyStream = bodyStream
        self.knownUploadLength = knownUploadLength
        self.handlers = handlers
        deliveryQueue = DispatchQueue(label: "AFNetworking.task", target: completionQueue ?? processingQueue)
        hasCompletionQueue = completionQueue != nil
        self.completionGroup = completionGroup
        self.monitors = monitors
        self.receivesBodyFromTransport = receivesBodyFromTransport
        state = Locked(State(writer: writer, limits: limits, totalTimeout: totalTimeout, interceptor: interceptor))
        state.withLock { $0.download.completed = writer?.resumeOffset ?? 0 }
    }

    var manager: URLSessionManager? { managerReference.manager }

    /// Whether the task is carried by the manager's `CurlTransport`.
    var isCarriedByLibcurl: Bool { curlTransport != nil }

    /// The task's registration with its transport, for its transfer when it starts.
    var transferRegistration: TransferRegistration? {
        curlTransport.map { TransferRegistration(transport: $0, events: self, options: transferOptions) }
    }

    // MARK: Events, on the delegate queue

    func didReceive(response: URLResponse) {
        guard let response = response as? HTTPURLResponse, !(100..<200).contains(response.statusCode), !endedAtRedirect else { return }
        let failed: Bool = state.withLock { state in
            if let limit = checkedSizeLimit(state), response.expectedContentLength > limit.bytes {
                state.record(.failed(SessionError.responseLimitExceeded(
                    limit: limit.limit, declaredLength: response.expectedContentLength, response: response)))
                return true
            }
            state.response = response
            state.responseStart = Date()
            state.data = Data()
            state.bytesReceived = 0
            guard let writer = state.writer else { return false }
            do {
                try writer.begin(response: response)
            } catch {
                state.record(.failed(error))
                return true
            }
            return false
        }
        if failed {
            // A limit (or the file) failed the task: nothing of this response goes on.
            task.cancel()
            return
        }
        if !monitors.isEmpty { monitors.notify { [task] in $0.task(task, didReceive: response) } }
        handlers.bodyChannel?.receive(response)
        // With a content coding the declared length counts encoded bytes while the body is
        // counted decoded: the total is unknown rather than a fraction past 1.
        // The header is read only for a declared length (a lookup costs thousands of instructions).
        var expected = response.expectedContentLength
        if expected >= 0, let coding = response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased(),
           !coding.isEmpty, coding != "identity" {
            expected = -1
        }
        state.withLock { state in
            let offset = state.writer?.bytesInFile ?? 0
            // The declared length is the server's: a sum past Int64.max is an unknown total.
            let (total, overflow) = expected.addingReportingOverflow(offset)
            state.download.set(completed: offset, total: expected >= 0 && !overflow ? total : -1)
        }
    }

    /// The size limit this delegate enforces itself: on URLSession's own protocol only, since
    /// the libcurl transport stops a response over its limits before handing on a byte of it
    /// (and reports it, `transfer(exceeded:declaredLength:response:)`).
    private func checkedSizeLimit(_ state: State) -> (bytes: Int64, limit: ResponseLimits.Limit)? {
        isCarriedByLibcurl ? nil : state.limits.sizeLimit(isDownload: kind == .download)
    }

    /// The libcurl transport's window for this task's body, told of every chunk processed (by
    /// the stream's consumer, when the body streams).
    func receiveBody(through window: CurlReceiveWindow) {
        if let channel = handlers.bodyChannel { return channel.receive(through: window) }
        state.withLock { $0.receiveWindow = window }
    }

    /// The body's trailer fields, for its stream's consumer (other tasks have no use for them).
    func receiveTrailers(_ fields: [String: String]) {
        handlers.bodyChannel?.receive(trailers: fields)
    }

    /// Whether the body streams to a consumer rather than into memory or a file.
    var streamsBody: Bool { handlers.bodyChannel != nil }

    /// Returns the bytes now received in total, counting a resumed download's partial file.
    func didReceive(data: Data) -> Int64 {
        data.withUnsafeBytes { didReceive(bytes: $0) }
    }

    /// The bytes are copied once: appended to the body, or written to the download's file.
    func didReceive(bytes: UnsafeRawBufferPointer) -> Int64 {
        var window: CurlReceiveWindow?
        defer { window?.consumed(bytes.count) }
        let (failed, total): (Bool, Int64) = state.withLock { state in
            window = state.receiveWindow
            state.bytesReceived += Int64(bytes.count)
            if let limit = checkedSizeLimit(state), state.bytesReceived > limit.bytes {
                let declared = state.response.map(\.expectedContentLength).flatMap { $0 >= 0 ? $0 : nil }
                state.record(.failed(SessionError.responseLimitExceeded(limit: limit.limit, declaredLength: declared, response: state.response)))
                return (true, state.bytesReceived)
            }
            if handlers.bodyChannel != nil { return (false, state.bytesReceived) }
            guard let writer = state.writer else {
                state.data.append(contentsOf: bytes)
                return (false, state.bytesReceived)
            }
            do {
                return (false, try writer.write(bytes))
            } catch {
                state.record(.failed(SessionError.downloadFileFailed(reason: error.localizedDescription, destination: nil)))
                return (true, writer.bytesInFile)
            }
        }
        if failed {
            task.cancel()
            return total
        }
        handlers.bodyChannel?.append(Data(bytes))
        state.withLock { $0.download.set(completed: total) }
        deliver(handler: handlers.downloadProgress, direction: .download)
        return total
    }

    func didSendBodyData(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        state.withLock { $0.bytesSent = totalBytesSent }
        let total = totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : knownUploadLength ?? -1
        state.withLock { $0.upload.set(completed: totalBytesSent, total: total) }
        deliver(handler: handlers.uploadProgress, direction: .upload)
    }

    /// Counts a redirect; returns how many the task has met.
    func didRedirect() -> Int {
        state.withLock { state in
            state.redirectCount += 1
            return state.redirectCount
        }
    }

    /// A redirect past the manager's limit was not followed.
    func didStopRedirects(after response: HTTPURLResponse) {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "More than \(URLSessionManager.maximumRedirects) redirects."]
        userInfo[NSURLErrorFailingURLErrorKey] = response.url
        let error = URLError(.httpTooManyRedirects, userInfo: userInfo)
        state.withLock { state in
            state.redirectCount -= 1
            state.record(.failed(error))
            state.endedAtRedirect = true
        }
    }

    /// A 307/308 redirect that URLSession would follow with an empty body was stopped.
    func didStopRedirect(_ response: HTTPURLResponse) {
        state.withLock { $0.record(.redirectStopped(response)) }
    }

    /// A redirect the origin rules refuse was not followed.
    func didRefuseRedirect(_ response: HTTPURLResponse, _ refusal: RedirectRule.Refusal) {
        let reason = switch refusal {
        case .intoUnixSocket: "a redirect from \(response.url?.scheme ?? "a network") URL into a Unix domain socket is never followed"
        }
        state.withLock { state in
            state.record(.failed(SessionError.redirectRefused(reason: reason, response: response)))
            state.endedAtRedirect = true
        }
    }

    /// Whether the task failed at a redirect it did not follow (too many, or refused): that
    /// redirect's response is not handed on as the task's response.
    var endedAtRedirect: Bool { state.withLock { $0.endedAtRedirect } }

    /// Whether this task keeps credentials across origins on redirects; `nil` for the manager's choice.
    var sendsCredentialsAcrossOrigins: Bool? {
        get { state.withLock { $0.sendsCredentialsAcrossOrigins } }
        set { state.withLock { $0.sendsCredentialsAcrossOrigins = newValue } }
    }

    /// Whether the `Cookie` header of the task's current hop is the jar's (made for that hop's
    /// URL, made again for the next), rather than the caller's or a redirect override's (which
    /// goes on to the next hop of the same origin). Without any `Cookie` header, `false` before
    /// the first redirect (a header there is the caller's) and `true` after it (a header
    /// URLSession's own protocol copies from the first request is not the hop's).
    var carriesJarCookies: Bool {
        get { state.withLock { $0.carriesJarCookies } }
        set { state.withLock { $0.carriesJarCookies = newValue } }
    }

    /// Whether the `Cookie` header of the task's request, where each attempt starts, is the
    /// jar's; set with `carriesJarCookies` when the task is made.
    var requestCarriesJarCookies: Bool {
        get { state.withLock { $0.requestCarriesJarCookies } }
        set { state.withLock { ($0.requestCarriesJarCookies, $0.carriesJarCookies) = (newValue, newValue) } }
    }

    /// The task's response limits; `setResponseLimits(_:for:)` replaces them before it runs.
    var limits: ResponseLimits {
        get { state.withLock { $0.limits } }
        set { state.withLock { $0.limits = newValue } }
    }

    /// How long the whole task may take on the libcurl transport; `setTotalTimeout(_:for:)`
    /// replaces it before it runs.
    var totalTimeout: TimeInterval? {
        get { state.withLock { $0.totalTimeout } }
        set { state.withLock { $0.totalTimeout = newValue } }
    }

    /// The settings above that the task's transfer takes when it starts, read under one lock.
    var transferSettings: (ResponseLimits, TimeInterval?, ClientIdentity?, (any RequestInterceptor)?) {
        state.withLock { ($0.limits, $0.totalTimeout, $0.clientIdentity, $0.interceptor) }
    }

    /// The libcurl transport ended one request and response of the task.
    func didFinish(_ transaction: TransactionMetrics) {
        state.withLock { $0.transactions.append(transaction) }
    }

    /// The task's own client identity (over the manager's); `setClientIdentity(_:for:)` sets it
    /// before it runs.
    var clientIdentity: ClientIdentity? {
        get { state.withLock { $0.clientIdentity } }
        set { state.withLock { $0.clientIdentity = newValue } }
    }

    /// The task's interceptors; `setInterceptor(_:for:)` adds one before it runs.
    var interceptor: (any RequestInterceptor)? {
        get { state.withLock { $0.interceptor } }
        set { state.withLock { $0.interceptor = newValue } }
    }

    /// The libcurl transport stopped the response for exceeding `limit`.
    func didExceed(_ limit: ResponseLimits.Limit, declaredLength: Int64?, response: HTTPURLResponse?) {
        state.withLock { $0.record(.failed(SessionError.responseLimitExceeded(limit: limit, declaredLength: declaredLength, response: response))) }
    }

    /// A credential challenge was refused because no usable credential was available.
    func didRefuseAuthenticationChallenge() {
        state.withLock { $0.record(.authenticationRequired) }
    }

    /// Asks for resume data when the (download) task completes after a cancel.
    func produceResumeData(_ handler: @escaping @Sendable (Data?) -> Void) {
        state.withLock { $0.resumeDataHandler = handler }
    }

    /// Whether a 307 or 308 redirect would send the task's request without its body: on
    /// URLSession's own protocol whenever it has one (it re-sends such a request empty); on
    /// libcurl only for a body stream that cannot start over.
    var redirectWouldDropBody: Bool {
        let hasBody = kind == .upload || task.originalRequest?.httpBody != nil || task.originalRequest?.httpBodyStream != nil
        guard hasBody else { return false }
        guard isCarriedByLibcurl else { return true }
        return bodyStream.map { !$0.isRewindable } ?? false
    }

    // MARK: Completion

    /// What completing a task decided, for the manager's `taskDidComplete` override.
    struct Completed {
        /// The error the task completes with; `nil` for success.
        let error: (any Error)?
    }

    /// The task completed with URLSession's `error`. Runs at most once (`nil` after the first);
    /// the metrics override runs now, the handlers later on the delivery queue.
    func complete(error urlSessionError: (any Error)?, manager: URLSessionManager) -> Completed? {
        // A body closed to cancel the task made URLSession fail its read first: a cancellation.
        let urlSessionError = urlSessionError != nil && bodyStream?.wasCancelled == true
            ? URLError(.cancelled, userInfo: task.originalRequest?.url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:]) : urlSessionError
        let snapshot: State? = state.withLock { state in
            guard !state.completed else { return nil }
            state.completed = true
            if let failure = bodyStream?.failure { state.record(.failed(SessionError.bodyStreamFailed(underlying: failure))) }
            let snapshot = state
            state.data = Data()
            return snapshot
        }
        guard let snapshot else { return nil }
        // The task is over: a body's producer ends and a read waiting on it returns.
        bodyStream?.release()
        // The delegate's own copies first: URLSession's getters wait for its work queue.
        let response = snapshot.response ?? (task.response as? HTTPURLResponse)
        var outcome = snapshot.failure.map { $0.error(response: response) } ?? urlSessionError
        let metrics = TaskMetrics(
            taskStart: taskStart, responseStart: snapshot.responseStart, taskEnd: Date(),
            countOfRequestBodyBytesSent: isCarriedByLibcurl ? snapshot.bytesSent : max(snapshot.bytesSent, task.countOfBytesSent),
            countOfResponseBodyBytesReceived: snapshot.bytesReceived, redirectCount: snapshot.redirectCount,
            transactionMetrics: snapshot.transactions)
        if let writer = snapshot.writer {
            writer.close()
            if let failure = outcome {
                outcome = finishFailedDownload(writer, response: response, error: failure, handler: snapshot.resumeDataHandler, manager: manager)
            }
        }
        // Before the completion is scheduled, as URLSession reports metrics before completing: a
        // completion handler may read what the metrics override stored.
        let error = outcome
        manager.override(\.taskDidFinishCollectingMetrics)?(session, task, metrics)
        if !monitors.isEmpty {
            monitors.notify { [task] in $0.task(task, didCompleteWith: response, error: error, metrics: metrics) }
        }
        let group = completionGroup
        group.enter()
        let data = snapshot.data
        let writer = snapshot.writer
        let finish: @Sendable (Result) -> Void = { [self] result in
            handlers.completion?(task, response, result.object, result.error)
            manager.postCompletion(of: task, response: response, data: data, result: result,
                                   serializer: responseSerializer, metrics: metrics)
            group.leave()
        }
        if hasCompletionQueue {
            // Keep the serializer off a caller's queue (which may be the main queue).
            manager.processingQueue.async { [self] in
                let result = serialize(response: response, data: data, error: error, writer: writer, manager: manager)
                deliveryQueue.async { finish(result) }
            }
        } else {
            deliveryQueue.async { [self] in
                finish(serialize(response: response, data: data, error: error, writer: writer, manager: manager))
            }
        }
        return Completed(error: error)
    }

    /// Keeps the partial file as resume data when it was asked for and can be validated, or
    /// when the transfer failed after bytes of a successful response arrived (then the error
    /// carries the resume data, as on Apple platforms, and the manager removes the file unless
    /// it is resumed); deletes it otherwise. Returns the error the task completes with.
    private func finishFailedDownload(
        _ writer: DownloadWriter, response: HTTPURLResponse?, error: any Error, handler: (@Sendable (Data?) -> Void)?,
        manager: URLSessionManager
    ) -> any Error {
        let request = Self.withoutRangeHeaders(task.originalRequest ?? task.currentRequest ?? URLRequest(url: URL(fileURLWithPath: "/")))
        let resume = ResumeData(request: request, response: response, partialFile: writer.fileURL, bytesReceived: writer.bytesInFile)
        if let handler {
            if resume == nil { writer.discard() }
            deliveryQueue.async { handler(resume?.encoded) }
            return error
        }
        guard let urlError = error as? URLError, urlError.code != .cancelled, let resume,
              let status = response?.statusCode, (200..<300).contains(status) else {
            writer.discard()
            return error
        }
        manager.keepUntilResumed(writer.fileURL)
        var userInfo = urlError.userInfo
        userInfo[NSURLSessionDownloadTaskResumeData] = resume.encoded
        return URLError(urlError.code, userInfo: userInfo)
    }

    private static func withoutRangeHeaders(_ request: URLRequest) -> URLRequest {
        var request = request
        request.setValue(nil, forHTTPHeaderField: "Range")
        request.setValue(nil, forHTTPHeaderField: "If-Range")
        return request
    }

    struct Result: Sendable {
        var object: (any Sendable)?
        var error: (any Error)?
        var assetPath: URL?
    }

    /// On the processing queue: the response serializer for data and uploads; validation, then
    /// the move to the destination, for downloads.
    private func serialize(response: HTTPURLResponse?, data: Data, error: (any Error)?, writer: DownloadWriter?, manager: URLSessionManager) -> Result {
        if let error { return Result(error: error) }
        guard let writer else {
            do {
                return Result(object: try responseSerializer.erasedResponseObject(for: response, data: data))
            } catch {
                return Result(error: error)
            }
        }
        do {
            _ = try responseSerializer.responseObject(for: response, data: nil)
        } catch let failure as ResponseSerializationError where failure.data == nil {
            // The API's error body went to the file: its first MiB goes on the error, as a held
            // error body does for a data task's interceptors.
            let body = writer.prefix(RetryContext.maximumHeldBodyLength)
            writer.discard()
            return Result(error: ResponseSerializationError(reason: failure.reason, response: failure.response, data: body,
                                                            underlyingError: failure.underlyingError))
        } catch {
            writer.discard()
            return Result(error: error)
        }
        let destination = response.flatMap { handlers.destination?(writer.fileURL, $0) }
            ?? manager.override(\.downloadTaskDidFinishDownloading)?(session, task, writer.fileURL)
        guard let destination else {
            writer.discard()
            return Result()
        }
        do {
            try DownloadMover.move(writer.fileURL, to: destination, options: handlers.downloadOptions)
            manager.post(.downloadTaskDidMoveFileSuccessfully, task: task, userInfo: [SessionNotificationKey.assetPath: destination])
            return Result(object: destination, assetPath: destination)
        } catch {
            writer.discard()
            manager.post(.downloadTaskDidFailToMoveFile, task: task, userInfo: [SessionNotificationKey.error: error])
            return Result(error: error)
        }
    }

    // MARK: Progress delivery

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
        direction == .upload ? \.upload : \.download
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
    private func deliver(handler: URLSessionManager.ProgressHandler?, direction: Direction) {
        guard let handler else { return }
        guard state.withLock({ $0.pendingDeliveries.insert(direction).inserted }) else { return }
        let progress = progress(direction)
        deliveryQueue.async { [self] in
            state.withLock { _ = $0.pendingDeliveries.remove(direction) }
            handler(progress)
        }
    }
}

extension TaskDelegate: CurlBodySink {
    func transportDidReceive(_ response: HTTPURLResponse) {
        didReceive(response: response)
    }

    func transportDidReceive(_ bytes: UnsafeRawBufferPointer) {
        _ = didReceive(bytes: bytes)
    }
}
