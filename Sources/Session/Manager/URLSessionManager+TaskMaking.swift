import AFLocking
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a task is made: its request prepared for what carries it, the session and libcurl
/// transport that carry it, and its `TaskDelegate` registered.
extension URLSessionManager {
    /// A data task; a request with a body stream becomes an upload with a wrapped stream.
    /// `cache`: the cache the task uses instead of the manager's (a background validation's).
    func makeDataTask(
        with request: URLRequest, credential: URLCredential?, uploadProgress: ProgressHandler? = nil,
        downloadProgress: ProgressHandler? = nil, serializer: (any URLResponseSerialization)? = nil, cache: ResponseCache? = nil,
        completion: TaskCompletion?
    ) throws -> URLSessionTask {
        try makeTask(kind: request.httpBodyStream == nil ? .data : .upload, request: request, credential: credential, serializer: serializer,
                     cache: cache, handlers: .init(uploadProgress: uploadProgress, downloadProgress: downloadProgress, completion: completion))
    }

    func makeDownloadTask(
        request: URLRequest, writer: DownloadWriter, credential: URLCredential?, progress: ProgressHandler?,
        destination: DownloadDestination?, options: DownloadOptions, completion: TaskCompletion?
    ) throws -> URLSessionTask {
        try makeTask(kind: .download, request: request, credential: credential, writer: writer,
                     handlers: .init(downloadProgress: progress, completion: completion, destination: destination, downloadOptions: options))
    }

    /// Creates the task from the prepared request and registers its delegate under the
    /// manager's lock, so that no task is ever created on an invalidated session (URLSession on
    /// Linux kills the process). On libcurl the task is the manager's own (`ManagedDataTask`,
    /// an upload's file a body stream with its length); on URLSession's own protocol a data
    /// task, or for `uploadFile` an upload task, of the session, made with the request the
    /// cache makes of it, or the manager's own when the cache answers it without the network.
    func makeTask(
        kind: TaskDelegate.Kind, request: URLRequest, uploadFile: URL? = nil, credential: URLCredential?,
        serializer: (any URLResponseSerialization)? = nil, writer: DownloadWriter? = nil, cache: ResponseCache? = nil,
        handlers: TaskDelegate.Handlers
    ) throws -> URLSessionTask {
        var configuration = configuration.withLock { $0 }
        if let cache { configuration.responseCache = cache }
        // On the caller's thread and Swift task, outside the lock (`TaskInstrumentation`).
        let observed = configuration.instrumentation?.observer(for: request).map(ObservedTask.init)
        return try creation.withLock { state in
            guard state.acceptsTasks else { throw SessionError.sessionInvalidated }
            if let problem = additionalHeadersProblem ?? RequestValidation.problem(
                of: request,
                timeouts: ["timeoutInterval": request.timeoutInterval, "timeoutIntervalForRequest": sessionConfiguration.timeoutIntervalForRequest,
                           "timeoutIntervalForResource": sessionConfiguration.timeoutIntervalForResource,
                           "connectTimeout": state.connection.connectTimeout]) {
                throw SessionError.invalidRequest(reason: problem)
            }
            let (session, carrier) = try currentCarrier(&state, monitors: configuration.eventMonitors)
            // URLSession's own protocol sends a body stream without its trailers, and says
            // nothing: a body with trailers is refused there instead of sent short of them.
            if carrier == nil, (request.httpBodyStream as? any TrailingBodyStream)?.hasTrailers == true {
                throw SessionError.invalidRequest(reason: "request trailers need the libcurl transport; URLSession's own protocol sends none")
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
            if let uploadFile, carrier != nil { request = try Self.streaming(uploadFile, as: request) }
            let (prepared, bodyStream) = Self.prepared(
                request, carriedBy: carrier, configurationTimeout: sessionConfiguration.timeoutIntervalForRequest)
            // URLSession's own task is made with the request it sends, so its cache is asked now;
            // a task the cache answers without the network is the manager's own, which
            // URLSession never sees.
            let cached = carrier == nil ? configuration.responseCache.map {
                TaskDelegate.cacheStep(
                    for: prepared, key: CacheKey(prepared, socketPath: nil, identity: nil, route: nil), kind: kind,
                    streamsBody: handlers.bodyChannel != nil, intercepted: false, limits: configuration.responseLimits, cache: $0)
            } : nil
            // The task's one record, which its delegate and a task of the manager's own share.
            let live = TaskDelegate.Live(writer: writer, settings: TaskSettings(
                limits: configuration.responseLimits, totalTimeout: sessionConfiguration.timeoutIntervalForResource,
                interceptor: carrier == nil ? nil : state.interceptor,
                redirects: RedirectPolicy(redaction: configuration.redaction, sendsCredentialsAcrossOrigins: configuration.sendsCredentialsAcrossOrigins)))
            (live.requestCarriesJarCookies, live.carriesJarCookies) = (carriesJarCookies, carriesJarCookies)
            if let cached {
                live.cacheUse = cached.use
                live.cacheRequest = prepared
                if case .send = cached.step {} else { live.cacheAnswer = cached.step }
            }
            let record = Locked(TaskDelegate.State(request: prepared, live: live))
            let knownUploadLength = Self.knownLength(of: request)
            let task: URLSessionTask
            switch (carrier, cached?.step) {
            case (.some, _), (nil, .answer?), (nil, .unavailable?):
                state.taskCount += 1
                task = ManagedDataTask(identifier: state.taskCount, request: prepared, knownUploadLength: knownUploadLength, record: record)
            // URLSession's own protocol sends the task as one attempt, whose request is made here.
            case (nil, .send(let sent)?):
                let sent = observed?.willSend(sent, retryAttempt: 1, followsRedirect: false) ?? sent
                task = uploadFile.map { session.uploadTask(with: sent, fromFile: $0) } ?? session.dataTask(with: sent)
            case (nil, nil):
                let sent = observed?.willSend(prepared, retryAttempt: 1, followsRedirect: false) ?? prepared
                task = uploadFile.map { session.uploadTask(with: sent, fromFile: $0) } ?? session.dataTask(with: sent)
            }
            let (reportsBody, delivery) = overridesState.withLock { overrides in
                (kind == .download ? overrides.downloadTaskDidWriteData != nil : overrides.dataTaskDidReceiveData != nil,
                 TaskEventDelivery(overrides: overrides, kind: kind))
            }
            let delegate = TaskDelegate(
                task: task, kind: kind, responseSerializer: serializer ?? configuration.responseSerializer,
                credential: credential ?? configuration.credential,
                bodyStream: bodyStream, knownUploadLength: knownUploadLength, handlers: handlers,
                session: session, manager: self, carrier: carrier, completionQueue: configuration.completionQueue,
                completionGroup: configuration.completionGroup, processingQueue: processingQueue, state: record,
                cache: configuration.responseCache,
                monitors: configuration.eventMonitors,
                reportsBody: reportsBody, delivery: delivery, sessionTasks: task is ManagedDataTask ? state.managedTasks : nil, observed: observed)
            if let task = task as? ManagedDataTask {
                task.delegateReference.delegate = delegate
                state.managedTasks.enter()
            }
            table.insert(delegate, keepingAlive: self)
            if !delegate.monitors.isEmpty { delegate.monitors.notify { [request] in $0.taskCreated(task, request: request) } }
            return task
        }
    }

    /// `request` with each of `headers` it does not set itself (names compared in any case).
    private static func withAdditionalHeaders(_ headers: [(name: String, value: String)], on request: URLRequest) -> URLRequest {
        var request = request
        for (name, value) in headers where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
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
        _ request: URLRequest, carriedBy carrier: (any TransferCarrier)?, configurationTimeout: TimeInterval
    ) -> (URLRequest, UploadBodyStream?) {
        var request = request
        let timeout = request.timeoutInterval == Self.defaultRequestTimeout ? configurationTimeout : request.timeoutInterval
        // URLSession's own protocol converts the timeout to an integer: no limit is the longest one.
        let chosen = carrier == nil ? min(max(1, timeout.rounded(.up)), TransferTimeouts.longest) : timeout
        // Set only when it changes: every change copies the request's storage.
        if request.timeoutInterval != chosen { request.timeoutInterval = chosen }
        var stream: UploadBodyStream?
        if let source = request.httpBodyStream {
            if carrier == nil {
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
        // Read as the transport sends it (`5, 5` is 5; a value that is no length declares none).
        return request.value(forHTTPHeaderField: "Content-Length").flatMap { try? ContentLength.length(of: $0).get() }
    }
}
