import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Carries a manager's requests on libcurl and OpenSSL: HTTP and HTTPS, the server's chain
/// checked against the manager's `SecurityPolicy` inside the TLS handshake, so a rejected
/// server receives no byte of the request (URLSession on Linux offers no server-trust hook of
/// its own), and at a fraction of the work URLSession's own protocol does per request.
///
/// Registered in the sessions of managers whose requests go through libcurl; it finds a task's
/// registration (its transport, its delegate, its options) through the session's delegate
/// (`TransferRegistry`), so that no marker is added to the request (none is visible to
/// callers, stored in resume data or sent) and no process-wide map is kept. Only
/// data tasks reach it (the manager expresses uploads and downloads as data
/// tasks), and it calls its client only from URLSession's work queue.
package final class CurlURLProtocol: URLProtocol {
    /// Touched only in `startLoading` and `stopLoading`, on URLSession's serial work queue.
    private var transfer: CurlTransfer?
    /// Whether the transfer may still call the client: from `startLoading` until `stopLoading`
    /// or the call that ends the task. On URLSession's work queue only, where the transfer's
    /// calls are posted (`CurlTransport.callClient`): a call posted before `stopLoading` ran
    /// finds it `false` and is dropped.
    var isLoading = false

    /// Every request of a session this protocol is registered in: the manager registers it
    /// only in sessions whose tasks libcurl carries. Schemes other than http and https fail
    /// in `startLoading` rather than reach URLSession's own protocols.
    override package class func canInit(with request: URLRequest) -> Bool { true }

    override package class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override package func startLoading() {
        guard let task, let registration = (task.delegate as? any TransferRegistry)?.transferRegistration(for: task) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "Only tasks the manager creates can run on its session.",
            ]))
            return
        }
        let transfer = CurlTransfer(request: request, urlProtocol: self, registration: registration)
        self.transfer = transfer
        isLoading = true
        registration.transport.start(transfer)
    }

    override package func stopLoading() {
        isLoading = false
        if let transfer { transfer.transport.stop(transfer) }
        transfer = nil
    }
}
