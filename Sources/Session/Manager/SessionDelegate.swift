import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The object a manager's `URLSession` retains as its delegate, in place of the manager:
/// URLSession keeps its delegate until the session is invalidated, so a manager that was its
/// own delegate lived on until `invalidateSession` (AFNetworking's most reported leak). This
/// object reaches the manager weakly and forwards every event to the manager's delegate
/// methods (which subclasses may override). The manager stays alive while it has tasks (the
/// task table holds it), so a fire-and-forget request still completes; once nobody holds it
/// and no task is left, it is freed and invalidates its session, which then releases this
/// object.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let reference: WeakManager

    init(manager: URLSessionManager) {
        reference = WeakManager(manager: manager)
    }

    private var manager: URLSessionManager? { reference.manager }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        manager?.urlSession(session, didBecomeInvalidWithError: error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let manager else { return completionHandler(.cancelAuthenticationChallenge, nil) }
        manager.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let manager else { return completionHandler(nil) }
        manager.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request, completionHandler: completionHandler)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        manager?.urlSession(session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                            totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        manager?.urlSession(session, task: task, didCompleteWithError: error)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let manager else { return completionHandler(.cancel) }
        manager.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        manager?.urlSession(session, dataTask: dataTask, didReceive: data)
    }
}

/// A weak reference to a manager; `weak` properties cannot be `let`, and this one is set once.
final class WeakManager: @unchecked Sendable {
    // @unchecked: `manager` is written once, in `init`; Swift's weak references are atomic.
    weak var manager: URLSessionManager?

    init(manager: URLSessionManager) { self.manager = manager }
}
