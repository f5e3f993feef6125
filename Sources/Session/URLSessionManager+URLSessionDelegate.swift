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
            if let original = task.originalRequest?.url, RedirectRule.origin(of: original) == challenger {
                credential = delegate?.credential ?? self.credential
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
    /// with a body that would be re-sent empty (any body on URLSession's own protocol, on
    /// Linux; on libcurl a body stream that cannot start over): that one stops at the redirect
    /// response and the task fails with `SessionError.redirectWouldDropBody`. On libcurl, data
    /// bodies, files and multipart bodies of files and data are sent again, as on Apple platforms. At most
    /// `maximumRedirects` are followed; the next fails the task with
    /// `URLError.httpTooManyRedirects`, as on Apple platforms (URLSession on Linux follows a
    /// delegate's redirects without limit).
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(redirection(of: task, delegate: table.delegate(for: task), in: session, response: response, to: request))
    }

    /// The request that follows a redirect of `task` (whose `delegate` counts it), with exactly
    /// the jar's cookies for its URL (RFC 6265 5.4, as curl -L with a jar: the previous hop's
    /// jar-made header never goes on), or `nil` to stop at the redirect response. A `Cookie`
    /// header of the caller's goes to every hop of its origin instead, as curl's -H does.
    func redirection(
        of task: URLSessionTask, delegate: TaskDelegate?, in session: URLSession, response: HTTPURLResponse, to proposed: URLRequest
    ) -> URLRequest? {
        storeCookies(of: response, delegate: delegate)
        if let delegate, delegate.didRedirect() > Self.maximumRedirects {
            delegate.didStopRedirects(after: response)
            return nil
        }
        var request = proposed
        if delegate?.carriesJarCookies ?? true { request.setValue(nil, forHTTPHeaderField: "Cookie") }
        if let previous = response.url {
            let (redaction, trusted) = (self.redaction, sendsCredentialsAcrossOrigins)
            switch RedirectRule.follow(request, from: previous, redaction: redaction,
                                       trusted: delegate?.settings.sendsCredentialsAcrossOrigins ?? trusted) {
            case .success(let next): request = next
            case .failure(let refusal):
                delegate?.didRefuseRedirect(response, refusal)
                return nil
            }
        }
        if [307, 308].contains(response.statusCode), delegate?.redirectWouldDropBody ?? false {
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

    /// Keeps the cookies of a response that URLSession's own protocol received (the libcurl
    /// transport stores its responses' cookies itself, each `Set-Cookie` line apart), unless
    /// the task's request does not handle cookies (`httpShouldHandleCookies`).
    func storeCookies(of response: HTTPURLResponse, delegate: TaskDelegate?) {
        guard sessionConfiguration.httpCookieAcceptPolicy != .never, delegate?.isCarriedByLibcurl == false,
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
        complete(task, error: error, in: session)
    }

    /// Completes `task` with `error` exactly once (the first call; later ones find no entry).
    func complete(_ task: URLSessionTask, error: (any Error)?, in session: URLSession) {
        guard let delegate = table.remove(task) else { return }
        defer { delegate.sessionTasks?.leave() }
        guard let outcome = delegate.complete(error: error, manager: self) else { return }
        override(\.taskDidComplete)?(session, task, outcome.error)
    }

    /// Records the response; `.cancel` from the override cancels the task, which URLSession on
    /// Linux would not do itself.
    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let disposition = receive(response, of: dataTask, delegate: table.delegate(for: dataTask), in: session)
        completionHandler(disposition)
        if disposition == .cancel { dataTask.cancel() }
    }

    /// What the manager does with a task's final `response`, from either transport: kept on
    /// `delegate` (unless the task failed at the redirect it is), its cookies stored (URLSession's
    /// own protocol), the overrides told. Returns whether the task goes on.
    func receive(
        _ response: URLResponse, of task: URLSessionDataTask, delegate: TaskDelegate?, in session: URLSession
    ) -> URLSession.ResponseDisposition {
        // A redirect the task failed at is not its response.
        if delegate?.endedAtRedirect == true { return .cancel }
        if let response = response as? HTTPURLResponse { storeCookies(of: response, delegate: delegate) }
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

    /// Accumulates the body, or writes it to the download's file.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let delegate = table.delegate(for: dataTask) else { return }
        let total = delegate.didReceive(data: data)
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
