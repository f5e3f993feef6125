import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The events of libcurl tasks that URLSession cannot report for a custom protocol, called by
/// the manager's `CurlTransport` on its own queue. They reach the task's delegate
/// and the overrides as URLSession's own events would.
extension URLSessionManager: CurlTransferObserver {
    package func curlTask(_ task: URLSessionTask, didSendBodyData totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        guard let delegate = table.delegate(for: task) else { return }
        let previous = delegate.counts(.upload).completed
        override(\.taskDidSendBodyData)?(delegate.session, task, totalBytesSent - previous, totalBytesSent, totalBytesExpectedToSend)
        delegate.didSendBodyData(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    package func curlTask(_ task: URLSessionTask, willRedirectWith response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        guard let delegate = table.delegate(for: task) else { return nil }
        return redirection(of: task, in: delegate.session, response: response, to: request)
    }

    package func curlTask(_ task: URLSessionTask, receivesBodyThrough window: CurlReceiveWindow) {
        table.delegate(for: task)?.receiveBody(through: window)
    }

    package func curlTask(_ task: URLSessionTask, credentialFor response: HTTPURLResponse) -> URLCredential? {
        guard let delegate = table.delegate(for: task), let url = response.url else { return nil }
        let space = URLProtectionSpace(
            host: url.host ?? "", port: url.port ?? (url.scheme == "https" ? 443 : 80), protocol: url.scheme,
            realm: Self.realm(of: response), authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: response, error: nil,
            sender: AnsweredByReturnValue())
        let (disposition, credential) = answer(to: challenge, of: task, in: delegate.session)
        return disposition == .useCredential ? credential : nil
    }

    package func curlTask(_ task: URLSessionTask, didFinish transaction: TransactionMetrics) {
        table.delegate(for: task)?.didFinish(transaction)
    }

    package func transferOptions(of task: URLSessionTask) -> CurlTaskOptions? {
        table.delegate(for: task).map { CurlTaskOptions(
            limits: $0.limits, isDownload: $0.kind == .download, totalTimeout: $0.totalTimeout, clientIdentity: $0.clientIdentity,
            interceptor: $0.interceptor, reportsAttempts: !$0.monitors.isEmpty, bodySink: $0.receivesBodyFromTransport ? $0 : nil) }
    }

    package func curlTask(_ task: URLSessionTask, willSend request: URLRequest, attempt: Int) {
        table.delegate(for: task)?.monitors.notify { $0.task(task, willSend: request, attempt: attempt) }
    }

    package func curlTask(_ task: URLSessionTask, willRetry context: RetryContext, after delay: TimeInterval) {
        table.delegate(for: task)?.monitors.notify { $0.task(task, willRetry: context, after: delay) }
        var userInfo: [AnyHashable: Any] = [SessionNotificationKey.retryAttempt: context.attempt, SessionNotificationKey.retryDelay: delay]
        userInfo[SessionNotificationKey.error] = context.error
        userInfo[SessionNotificationKey.retriedResponse] = context.response
        post(.taskWillRetry, task: task, userInfo: userInfo)
    }

    package func curlTask(_ task: URLSessionTask, exceeded limit: ResponseLimits.Limit, declaredLength: Int64?, response: HTTPURLResponse?) {
        table.delegate(for: task)?.didExceed(limit, declaredLength: declaredLength, response: response)
    }

    /// The `realm` parameter of a Basic challenge.
    private static func realm(of response: HTTPURLResponse) -> String? {
        guard let header = response.value(forHTTPHeaderField: "WWW-Authenticate"),
              let range = header.range(of: "realm=", options: .caseInsensitive) else { return nil }
        let value = header[range.upperBound...]
        if value.hasPrefix("\"") { return value.dropFirst().split(separator: "\"", maxSplits: 1).first.map(String.init) }
        return value.split(separator: ",", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// The sender of the challenges the manager builds for its libcurl transport, which takes the
/// answer from `answer(to:of:in:)`'s return value rather than from these calls.
private final class AnsweredByReturnValue: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
