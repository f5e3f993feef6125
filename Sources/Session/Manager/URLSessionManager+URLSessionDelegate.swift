import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession's delegate callbacks, on `operationQueue`, for the tasks of URLSession's own
/// protocol: each looks up the task's `TaskDelegate` and forwards the event, after the override
/// closure if one is set. The manager's own tasks (the libcurl transport's) reach the same
/// rules from the transport's queue (`receive`, `report`, `complete`, `redirection`, `answer`).
/// These are URLSession's entry points; do not call them yourself.
extension URLSessionManager: URLSessionDataDelegate {
    /// Completes the session's tasks that have not completed with `URLError.cancelled`, then
    /// posts `Notification.Name.sessionDidInvalidate` after the override closure. URLSession on
    /// Linux forgets its delegate right after this call, and a task whose cancellation had not
    /// reached the delegate yet would otherwise never complete; a completion URLSession still
    /// delivers afterwards finds the task gone from the table and is ignored. The manager's own
    /// tasks end by themselves (cancelled, or finished before the session was invalidated).
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        for delegate in table.all where delegate.session === session && !(delegate.task is ManagedDataTask) {
            let url = delegate.task.originalRequest?.url
            urlSession(session, task: delegate.task, didCompleteWithError: URLError(
                .cancelled, userInfo: url.map { [NSURLErrorFailingURLErrorKey: $0] } ?? [:]))
        }
        override(\.sessionDidBecomeInvalid)?(session, error)
        NotificationCenter.default.post(name: .sessionDidInvalidate, object: session)
    }

    /// Answers HTTP Basic with the task's credential, else the manager's, once. Anything that
    /// would hang or crash URLSession on Linux (no credential, a refused one, Digest, a `nil`
    /// credential from an override) is cancelled instead, and the task fails with
    /// `SessionError.authenticationRequired` carrying the 401 response.
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let delegate = table.delegate(for: task)
        var (disposition, credential) = answer(to: challenge, of: task, delegate: delegate, in: session)
        if disposition == .cancelAuthenticationChallenge { delegate?.didRefuseAuthenticationChallenge() }
        if disposition != .useCredential { credential = nil }
        // The request sent again carries credentials: its response is one user's.
        if let credential { delegate?.sentCredential(credential) }
        completionHandler(disposition, credential)
    }

    /// How the manager answers `challenge`: the override's answer, or for HTTP Basic the
    /// task's credential (its `delegate`'s), else the manager's, on the first attempt. Whatever
    /// would hang or crash URLSession on Linux becomes `.cancelAuthenticationChallenge`.
    func answer(
        to challenge: URLAuthenticationChallenge, of task: URLSessionTask, delegate: TaskDelegate?, in session: URLSession
    ) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        var disposition: URLSession.AuthChallengeDisposition
        var credential: URLCredential?
        if let override = override(\.taskDidReceiveAuthenticationChallenge) {
            (disposition, credential) = override(session, task, challenge)
        } else if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic {
            // A credential belongs to the origin of the task's request: never to a host (or a
            // plain-http URL) a redirect led to, where Basic would hand over the password.
            let space = challenge.protectionSpace
            let challenger = "\(space.protocol ?? "")://\(space.host.lowercased()):\(space.port)"
            if let original = task.originalRequest?.url, RedirectPolicy.origin(of: original) == challenger {
                // The task's own credential, or the manager's when the task was made.
                credential = delegate.map(\.credential) ?? self.credential
            }
            disposition = challenge.previousFailureCount == 0 && credential != nil ? .useCredential : .cancelAuthenticationChallenge
        } else {
            // Digest: URLSession on Linux stops the process on `.useCredential`; other schemes
            // never reach here, and default handling of an HTTP challenge waits forever.
            disposition = .cancelAuthenticationChallenge
        }
        if disposition == .performDefaultHandling || (disposition == .useCredential && credential == nil) {
            return (.cancelAuthenticationChallenge, nil)
        }
        return (disposition, credential)
    }

    /// Follows redirects (or what the override chooses), except a 307 or 308 of a request
    /// with a body: URLSession's own protocol on Linux would send it again empty, so the task
    /// stops at the redirect response and fails with `SessionError.redirectWouldDropBody` (the
    /// libcurl transport sends data bodies, files and multipart bodies of files and data again,
    /// as on Apple platforms). At most `maximumRedirects` are followed; the next fails the task
    /// with `URLError.httpTooManyRedirects`, as on Apple platforms (URLSession on Linux follows
    /// a delegate's redirects without limit). The response's cookies are stored first (the
    /// libcurl transport stores its responses' cookies itself, each `Set-Cookie` line apart).
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let delegate = table.delegate(for: task)
        storeCookies(of: response, delegate: delegate)
        // As the libcurl transport asks (URLSession sends no body again).
        if let delegate {
            completionHandler(delegate.transfer(willRedirectWith: response, to: request, resendsBody: false))
        } else {
            completionHandler(redirection(of: task, delegate: nil, in: session, response: response, to: request, resendsBody: false))
        }
    }

    /// The request that follows a redirect of `task` (whose `delegate` counts it), with exactly
    /// the jar's cookies for its URL (RFC 6265 5.4, as curl -L with a jar: the previous hop's
    /// jar-made header never goes on), or `nil` to stop at the redirect response. A `Cookie`
    /// header of the caller's goes to every hop of its origin instead, as curl's -H does.
    /// `resendsBody`: whether the carrier can send the request's body again, which a 307 or 308
    /// needs.
    func redirection(
        of task: URLSessionTask, delegate: TaskDelegate?, in session: URLSession, response: HTTPURLResponse, to proposed: URLRequest,
        resendsBody: Bool
    ) -> URLRequest? {
        var request = proposed
        if delegate?.carriesJarCookies ?? true { request.setValue(nil, forHTTPHeaderField: "Cookie") }
        // The task's rules, as its manager had them when it was made.
        let policy = delegate?.settings?.redirects
            ?? RedirectPolicy(redaction: redaction, sendsCredentialsAcrossOrigins: sendsCredentialsAcrossOrigins)
        switch policy.decide(request, status: response.statusCode, from: response.url, redirectNumber: delegate?.didRedirect() ?? 0,
                             hasRequestBody: delegate?.hasRequestBody ?? false, resendsBody: resendsBody) {
        case .follow(let next):
            request = next
        case .tooMany:
            delegate?.didStopRedirects(after: response)
            return nil
        case .refused(let refusal):
            delegate?.didRefuseRedirect(response, refusal)
            return nil
        case .wouldDropBody:
            delegate?.didStopRedirect(response)
            return nil
        }
        let accepted = override(\.taskWillPerformHTTPRedirection).map { $0(session, task, response, request) } ?? request
        return accepted.map { addingCookies(to: $0, delegate: delegate) }
    }

    /// The task's `request` where an attempt starts (a retry goes back to it), with the jar's
    /// cookies as they are now instead of those of the task's creation, unless the request
    /// carries a `Cookie` header of the caller's.
    func renewingCookies(of request: URLRequest, delegate: TaskDelegate) -> URLRequest {
        var request = request
        if delegate.requestCarriesJarCookies { request.setValue(nil, forHTTPHeaderField: "Cookie") }
        return addingCookies(to: request, delegate: delegate)
    }

    /// `request` with the jar's cookies for its URL, unless it carries a `Cookie` header of its
    /// own (the caller's, or the override's) that replaces them, as on a task's first request
    /// (URLSession on Linux adds none to the request a delegate chose to follow a redirect
    /// with, and the manager keeps its own jar). Records on `delegate` whose header goes.
    func addingCookies(to request: URLRequest, delegate: TaskDelegate?) -> URLRequest {
        guard request.value(forHTTPHeaderField: "Cookie") == nil else {
            delegate?.carriesJarCookies = false
            return request
        }
        delegate?.carriesJarCookies = true
        guard sessionConfiguration.httpShouldSetCookies, request.httpShouldHandleCookies, let url = request.url,
              let cookies = cookieJar.headerValue(for: url) else { return request }
        var request = request
        request.setValue(cookies, forHTTPHeaderField: "Cookie")
        return request
    }

    /// Keeps the cookies of a response that URLSession's own protocol received, unless the
    /// task's request does not handle cookies (`httpShouldHandleCookies`).
    private func storeCookies(of response: HTTPURLResponse, delegate: TaskDelegate?) {
        guard sessionConfiguration.httpCookieAcceptPolicy != .never,
              delegate?.task.originalRequest?.httpShouldHandleCookies ?? true,
              let url = response.url, let joined = response.value(forHTTPHeaderField: "Set-Cookie") else { return }
        cookieJar.store(setCookies: CookieJar.splitJoinedSetCookie(joined), from: url)
    }

    /// Updates upload progress.
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        override(\.taskDidSendBodyData)?(session, task, bytesSent, totalBytesSent, totalBytesExpectedToSend)
        table.delegate(for: task)?.didSendBodyData(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    /// Removes the task from the table and completes it exactly once.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let delegate = table.delegate(for: task)
        // A stored response that may stand in for the failure answers instead (`stale-if-error`).
        if delegate?.answerStaleOnFailure(error) == true { return }
        // URLSession's own count may be ahead of the last `didSendBodyData` it delivered: the
        // task's metrics take the larger.
        delegate?.didSend(atLeast: task.countOfBytesSent)
        complete(task, error: error, in: session)
    }

    /// Completes `task` with `error` exactly once (the first call; later ones find no entry).
    func complete(_ task: URLSessionTask, error: (any Error)?, in session: URLSession) {
        guard let delegate = table.remove(task) else { return }
        defer { delegate.sessionTasks?.leave() }
        guard let outcome = delegate.complete(error: error, manager: self) else { return }
        override(\.taskDidComplete)?(session, task, outcome.error)
    }

    /// Records the response, its cookies stored; `.cancel` from the override cancels the task,
    /// which URLSession on Linux would not do itself. A declared length past the task's size
    /// limit fails the task with it before anything hears of the response, as on the libcurl
    /// transport (URLSession's own protocol has no limits).
    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let delegate = table.delegate(for: dataTask)
        if let http = response as? HTTPURLResponse, delegate?.endedAtRedirect != true {
            storeCookies(of: http, delegate: delegate)

            if let delegate, !(100..<200).contains(http.statusCode), stopsAtSizeLimit(
                delegate, bytes: http.expectedContentLength, declaredLength: http.expectedContentLength, response: http) {
                completionHandler(.cancel)
                dataTask.cancel()
                return
            }
        }
        // As the libcurl transport hands it on (a stored response may stand in for it).
        let disposition = if let delegate, let http = response as? HTTPURLResponse {
            delegate.receiveFinal(http)
        } else {
            receive(response, of: dataTask, delegate: delegate, in: session)
        }
        completionHandler(disposition)
        if disposition == .cancel { dataTask.cancel() }
    }

    /// Whether `bytes` of the body in all would pass `delegate`'s size limit: then the task
    /// fails with it (`SessionError.responseLimitExceeded`). For URLSession's own protocol,
    /// which has no limits; the libcurl transport stops a response over them before handing
    /// on a byte (`TransferEvents.transfer(exceeded:declaredLength:response:)`).
    private func stopsAtSizeLimit(_ delegate: TaskDelegate, bytes: Int64, declaredLength: Int64?, response: HTTPURLResponse?) -> Bool {
        guard let limit = delegate.settings?.limits.sizeLimit(isDownload: delegate.kind == .download), bytes > limit.bytes else { return false }
        delegate.didExceed(limit.limit, declaredLength: declaredLength, response: response)
        return true
    }

    /// What the manager does with a task's final `response`, from either transport: kept on
    /// `delegate` (unless the task failed at the redirect it is), the overrides told. Returns
    /// whether the task goes on.
    func receive(
        _ response: URLResponse, of task: URLSessionDataTask, delegate: TaskDelegate?, in session: URLSession
    ) -> URLSession.ResponseDisposition {
        // A redirect the task failed at is not its response.
        if delegate?.endedAtRedirect == true { return .cancel }
        let disposition = override(\.dataTaskDidReceiveResponse)?(session, task, response) ?? .allow
        guard let delegate else { return disposition }
        delegate.didReceive(response: response)
        if delegate.kind == .download, let writer = response as? HTTPURLResponse,
           ContentRange.start(of: writer).map({ $0 > 0 }) ?? false {
            let counts = delegate.counts(.download)
            override(\.downloadTaskDidResume)?(session, task, counts.completed, counts.total)
        }
        return disposition
    }

    /// Accumulates the body, or writes it to the download's file; past the task's size limit,
    /// fails the task with it instead.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let delegate = table.delegate(for: dataTask) else { return }
        let (received, response) = delegate.state.withLock { ($0.shown.bytesReceived, $0.shown.response) }
        let declared = response.map(\.expectedContentLength).flatMap { $0 >= 0 ? $0 : nil }
        if stopsAtSizeLimit(delegate, bytes: received + Int64(data.count), declaredLength: declared, response: response) {
            dataTask.cancel()
            return
        }
        guard let total = delegate.didReceive(data: data) else { return }
        report(data.count, bytesOf: data, total: total, of: dataTask, delegate: delegate, in: session)
    }

    /// Tells the overrides of `count` body bytes of `task` (`data`, made only when an override
    /// takes it), `total` received so far.
    func report(
        _ count: Int, bytesOf data: @autoclosure () -> Data, total: Int64, of task: URLSessionDataTask, delegate: TaskDelegate,
        in session: URLSession
    ) {
        if delegate.kind == .download {
            override(\.downloadTaskDidWriteData)?(session, task, Int64(count), total, delegate.counts(.download).total)
        } else if let override = override(\.dataTaskDidReceiveData) {
            override(session, task, data())
        }
    }
}
