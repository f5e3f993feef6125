import AFSecurity
import AFSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The events of a task the manager runs on libcurl (`ManagedDataTask`), called by the task's
/// transfer on the transport's queue, and of the cache's answers in a transfer's place on any
/// transport (`onEventQueue`). They reach the task's handlers, the manager's overrides
/// and its event monitors as URLSession's own events would. Where an override hears of them
/// (`delivery`), they are handed to the delegate queue (`operationQueue`), where URLSession
/// calls overrides, in order; the transport's queue never waits for them.
extension TaskDelegate: TransferEvents {
    func transferDidReceive(_ response: HTTPURLResponse) {
        // The instrumentation hears at once, in the transport's order (its attempts end on the
        // transport's queue too); the task and its overrides where its events are handled.
        observed?.received(response)
        inOrder { [self] in
            if receiveFinal(response) == .cancel { task.cancel() }
        }
    }

    /// Runs `event` where the task's events are handled (`delivery`): at once, or after the
    /// events handed to the delegate queue before it (`eventQueue`). `isCompletion`: the task's
    /// end, which goes there for overrides that hear of the end only.
    private func inOrder(isCompletion: Bool = false, _ event: @escaping @Sendable () -> Void) {
        guard let eventQueue, isCompletion || delivery == .delegateQueue else { return event() }
        eventQueue.enqueue(event)
    }

    /// Hands the task's final `response` to the manager, as URLSession's delivery did, from
    /// either transport; returns whether the task goes on. A `304` (or a 5xx, where a stale
    /// response may stand in) answering the cache's validation: the task takes the stored
    /// response and its body instead, and the transfer's own body is dropped. Runs where the
    /// task's events are handled (the delegate queue when an override hears of them).
    func receiveFinal(_ response: HTTPURLResponse) -> URLSession.ResponseDisposition {
        let stored: CachedResponse
        switch storedAnswer(to: response) {
        case .none:
            return take(response)
        case .refused(let error, _):
            live { live, _ in live.record(.failed(error)) }
            return .cancel
        case .stored(let answer):
            stored = answer
        }
        guard let storedResponse = stored.response else { return take(response) }
        let disposition = take(storedResponse)
        if disposition != .cancel { stored.body.withUnsafeBytes { takeBody($0) } }
        live { live, _ in live.discardsBody = true }
        return disposition
    }

    /// Hands `response` to the manager; returns whether the task goes on.
    private func take(_ response: HTTPURLResponse) -> URLSession.ResponseDisposition {
        guard let manager, let dataTask = task as? URLSessionDataTask else { return .allow }
        return manager.receive(response, of: dataTask, delegate: self, in: session)
    }

    func transferDidReceive(_ bytes: UnsafeRawBufferPointer) {
        guard delivery == .delegateQueue else { return takeBody(bytes) }
        // Copied once for the delegate queue; the window counts it out until handled there.
        let data = Data(bytes)
        inOrder { [self] in
            // A response override's `.cancel` came while these bytes waited: they are not the task's.
            if (task as? ManagedDataTask)?.cancellationError == nil { data.withUnsafeBytes { takeBody($0) } }
            if !streamsBody, let window = live({ live, _ in live.receiveWindow }) ?? nil { window.consumed(data.count) }
        }
    }

    /// Takes a chunk of the body, and tells an override that hears of it.
    private func takeBody(_ bytes: UnsafeRawBufferPointer) {
        guard let total = didReceive(bytes: bytes), reportsBody, let manager, let dataTask = task as? URLSessionDataTask else { return }
        manager.report(bytes.count, bytesOf: Data(bytes), total: total, of: dataTask, delegate: self, in: session)
    }

    func transferDidComplete(with error: (any Error)?) {
        inOrder(isCompletion: true) { [self] in complete(with: error) }
    }

    /// Ends the task with its transfer's `error` (`nil` when the body arrived whole).
    private func complete(with error: (any Error)?) {
        if answerStaleOnFailure(error) { return }
        // A task cancelled before its end was handled (by a response block's `.cancel`, or by
        // its caller as it ended) completes cancelled.
        let error = error ?? (task as? ManagedDataTask)?.cancellationError
        // A 401 challenge the transport did not answer (no credential, a refused one, Digest)
        // ends the task as on URLSession's own protocol, where the challenge is cancelled.
        if error == nil, let response = state.withLock({ $0.shown.response }), Self.isUnansweredChallenge(response) {
            didRefuseAuthenticationChallenge()
        }
        manager?.complete(task, error: error, in: session)
    }

    /// Whether `response` is a 401 whose first challenge is Basic or Digest: the schemes
    /// URLSession on Linux makes an authentication challenge of (others reach the response
    /// serializer as a 401).
    static func isUnansweredChallenge(_ response: HTTPURLResponse) -> Bool {
        guard response.statusCode == 401, let header = response.value(forHTTPHeaderField: "WWW-Authenticate") else { return false }
        let scheme = header.utf8.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            .prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: ",") }
        let lowercased = String(decoding: scheme.map { $0 | 0x20 }, as: UTF8.self)
        return lowercased == "basic" || lowercased == "digest"
    }

    func transferDidSendBodyData(totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        // Where the transfer sends, as its redirect and credential decisions are asked: the
        // overrides of the sending side run in the order the request goes out.
        let previous = counts(.upload).completed
        manager?.override(\.taskDidSendBodyData)?(session, task, totalBytesSent - previous, totalBytesSent, totalBytesExpectedToSend)
        didSendBodyData(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    func transfer(willRedirectWith response: HTTPURLResponse, to request: URLRequest, resendsBody: Bool) -> URLRequest? {
        observed?.received(response)
        guard let next = manager?.redirection(of: task, delegate: self, in: session, response: response, to: request, resendsBody: resendsBody)
        else { return nil }
        let sent = leaveCache(redirectingWith: next)
        state.withLock { $0.currentRequest = sent }
        return sent
    }

    func transfer(requestForAttempt attempt: Int, from request: URLRequest) -> URLRequest {
        // Each attempt may follow the whole redirect limit, as a task made afresh would (curl's
        // --retry counts each transfer's redirects anew too).
        restartRedirectCount()
        returnToCache()
        return manager?.renewingCookies(of: request, delegate: self) ?? request
    }

    func transferReceivesBody(through window: ReceiveWindow) {
        if streamsBody { receiveBody(through: window) } else { live { live, _ in live.receiveWindow = window } }
    }

    func transfer(answeringBasicChallenge response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        guard let manager, let url = response.url else { return nil }
        let space = URLProtectionSpace(
            host: url.host ?? "", port: url.port ?? (url.scheme == "https" ? 443 : 80), protocol: url.scheme,
            realm: Self.realm(of: response), authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: response, error: nil,
            sender: AnsweredByReturnValue())
        let (disposition, credential) = manager.answer(to: challenge, of: task, delegate: self, in: session)
        guard disposition == .useCredential, let user = credential?.user, let password = credential?.password else { return nil }
        let authenticated = Self.authenticated(request, user: user, password: password)
        willSendForCache(authenticated)
        return authenticated
    }

    /// `request` again, with `Authorization: Basic` for `user` and `password`.
    static func authenticated(_ request: URLRequest, user: String, password: String) -> URLRequest {
        var next = request
        next.setValue(BasicAuthorization.headerValue(user: user, password: password), forHTTPHeaderField: "Authorization")
        return next
    }

    func transferDidFinish(_ transaction: TransactionMetrics) {
        // At once: no override hears of it, and the instrumentation ends the attempt before the
        // next one starts (`transfer(willSend:attempt:followsRedirect:)`).
        didFinish(transaction)
        observed?.finished(transaction)
    }

    func transfer(willSend request: URLRequest, attempt: Int, followsRedirect: Bool) -> URLRequest {
        if !followsRedirect { monitors.notify { [task] in $0.task(task, willSend: request, attempt: attempt) } }
        let sent = observed?.willSend(request, retryAttempt: attempt, followsRedirect: followsRedirect) ?? request
        // The cache reads each attempt's request as it goes out; a redirect's leads to nothing it stores.
        if !followsRedirect { willSendForCache(sent) }
        return sent
    }

    func transfer(willRetry context: RetryContext, after delay: TimeInterval) {
        observed?.willRetry(context, after: delay)
        monitors.notify { [task] in $0.task(task, willRetry: context, after: delay) }
        var userInfo: [AnyHashable: Any] = [SessionNotificationKey.retryAttempt: context.attempt, SessionNotificationKey.retryDelay: delay]
        userInfo[SessionNotificationKey.error] = context.error
        userInfo[SessionNotificationKey.retriedResponse] = context.response
        manager?.post(.taskWillRetry, task: task, userInfo: userInfo)
    }

    func transfer(receivedTrailers fields: [String: String]) {
        inOrder { [self] in receiveTrailers(fields) }
    }

    func transfer(exceeded limit: ResponseLimits.Limit, declaredLength: Int64?, response: HTTPURLResponse?) {
        inOrder { [self] in didExceed(limit, declaredLength: declaredLength, response: response) }
    }

    /// What the task with `settings` (as they are when the transfer starts) asks of its
    /// transfer: each attempt's request is reported to event monitors, to the cache (which
    /// must know whether credentials went with it), and to the task's observer.
    func transferOptions(_ settings: TaskSettings) -> TransferOptions {
        TransferOptions(
            limits: settings.limits, isDownload: kind == .download || streamsBody, totalTimeout: settings.totalTimeout,
            clientIdentity: settings.clientIdentity, interceptor: settings.interceptor,
            reportsAttempts: !monitors.isEmpty || cache != nil || observed != nil, readsThroughWindow: streamsBody || delivery.readsThroughWindow)
    }

    /// The `realm` parameter of a Basic challenge: a quoted string up to its closing quote
    /// (a backslash escaping the next byte), or a token up to a comma. Read as bytes: a `"` or
    /// `=` followed by a combining mark is one `Character`, which a search of the text would
    /// pass over.
    private static func realm(of response: HTTPURLResponse) -> String? {
        guard let header = response.value(forHTTPHeaderField: "WWW-Authenticate") else { return nil }
        let bytes = Array(header.utf8)
        let key = Array("realm=".utf8)
        guard bytes.count >= key.count, let start = (0...(bytes.count - key.count)).first(where: { start in
            key.indices.allSatisfy { bytes[start + $0] == key[$0] || (bytes[start + $0] | 0x20 == key[$0] && key[$0] >= 0x61) }
        }) else { return nil }
        var value = bytes[(start + key.count)...]
        guard value.first == UInt8(ascii: "\"") else {
            let token = value.prefix { $0 != UInt8(ascii: ",") }
            return String(decoding: token, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        }
        value = value.dropFirst()
        var realm: [UInt8] = []
        while let byte = value.popFirst(), byte != UInt8(ascii: "\"") {
            realm.append(byte == UInt8(ascii: "\\") ? value.popFirst() ?? byte : byte)
        }
        return String(decoding: realm, as: UTF8.self)
    }
}

/// The sender of the challenges a task builds for its libcurl transfer, which takes the answer
/// from `answer(to:of:delegate:in:)`'s return value rather than from these calls.
private final class AnsweredByReturnValue: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
