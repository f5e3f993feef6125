import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Carries a manager's requests on libcurl and OpenSSL: HTTP and HTTPS, the server's chain
/// checked against the manager's `SecurityPolicy` inside the TLS handshake, so a rejected
/// server receives no byte of the request (URLSession on Linux offers no server-trust hook of
/// its own), and at a fraction of the work URLSession's own protocol does per request.
///
/// Registered in every manager's session; it takes only requests the manager marked with its
/// transport. Only data tasks reach it (the manager expresses uploads and downloads as data
/// tasks), and it calls its client only from URLSession's work queue.
package final class CurlURLProtocol: URLProtocol {
    /// Names the transport of a request. A header, because URLSession on Linux drops
    /// `URLProtocol` properties whenever it copies a request; it is never sent.
    static let transportHeader = "X-AFNetworking-Transport"

    /// Touched only in `startLoading` and `stopLoading`, on URLSession's serial work queue.
    private var transfer: CurlTransfer?

    /// `request` marked to be carried by `transport`.
    package static func request(_ request: URLRequest, carriedBy transport: CurlTransport) -> URLRequest {
        var request = request
        request.setValue(transport.identifier, forHTTPHeaderField: transportHeader)
        return request
    }

    private static func transport(of request: URLRequest) -> CurlTransport? {
        request.value(forHTTPHeaderField: transportHeader).flatMap(CurlTransport.registered)
    }

    override package class func canInit(with request: URLRequest) -> Bool {
        transport(of: request) != nil
    }

    override package class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override package func startLoading() {
        guard let transport = Self.transport(of: request) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        let transfer = CurlTransfer(request: request, urlProtocol: self, transport: transport)
        self.transfer = transfer
        transport.start(transfer)
    }

    override package func stopLoading() {
        transfer?.cancel()
        transfer = nil
    }
}
