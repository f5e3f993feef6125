import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The events of pinned tasks that URLSession cannot report for a custom protocol, called by
/// the manager's `CurlTransport` on URLSession's work queue. They reach the task's delegate
/// and the overrides as URLSession's own events would.
extension URLSessionManager: PinnedTransferObserver {
    package func pinnedTask(_ task: URLSessionTask, didSendBodyData totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        guard let delegate = table.delegate(for: task) else { return }
        let previous = delegate.uploadProgress.completedUnitCount
        override(\.taskDidSendBodyData)?(delegate.session, task, totalBytesSent - previous, totalBytesSent, totalBytesExpectedToSend)
        delegate.didSendBodyData(totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend)
    }

    package func pinnedTask(_ task: URLSessionTask, willRedirectWith response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        guard let delegate = table.delegate(for: task) else { return nil }
        return redirection(of: task, in: delegate.session, response: response, to: request)
    }

    package func credential(forPinnedTask task: URLSessionTask) -> URLCredential? {
        table.delegate(for: task)?.credential ?? credential
    }
}
