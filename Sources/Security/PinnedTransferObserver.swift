import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a `CurlTransport` asks of the manager that owns it, for the parts of a task URLSession
/// cannot carry for a custom protocol (upload progress, redirect decisions, credentials).
/// Called on URLSession's work queue; implementations must not wait on task creation.
package protocol PinnedTransferObserver: AnyObject, Sendable {
    /// The body bytes sent so far, and the body's length (-1 when unknown).
    func pinnedTask(_ task: URLSessionTask, didSendBodyData totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// The request to follow a redirect with, or `nil` to deliver the redirect response.
    func pinnedTask(_ task: URLSessionTask, willRedirectWith response: HTTPURLResponse, to request: URLRequest) -> URLRequest?
    /// The credential that answers an HTTP Basic challenge of `task`, if any.
    func credential(forPinnedTask task: URLSessionTask) -> URLCredential?
}
