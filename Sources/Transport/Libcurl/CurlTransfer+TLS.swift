import AFSecurity
import LibcurlBridge
import OpenSSLBridge
import Foundation

/// Where the manager's `SecurityPolicy` is enforced: OpenSSL's certificate verification of
/// every origin handshake is replaced by the policy's evaluation of the presented chain for the
/// request's host, so a rejected server receives no byte of the request; and a server's request
/// for a client certificate is noted for the error a failed handshake reports.
extension CurlTransfer {
    static let sslContextCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
        _, sslContext, context in
        guard let sslContext else { return CurlCode.sslConnectError }
        let transfer = transfer(context)
        transfer.hop.handshakes += 1
        // Through an `.https` proxy the first handshake is the proxy's, verified by libcurl
        // with the proxy's anchors.
        if transfer.hop.proxy?.kind == .https, transfer.hop.handshakes == 1 { return CurlCode.ok }
        _ = afn_ssl_ctx_set_verify(sslContext, verifyCallback, context)
        _ = afn_ssl_ctx_on_certificate_request(sslContext, certificateRequestCallback, context)
        return CurlCode.ok
    }

    /// The server asked for a client certificate and the transfer has none; the handshake goes
    /// on without (the server decides whether that fails).
    private static let certificateRequestCallback: @convention(c) (UnsafeMutableRawPointer?) -> Void = { context in
        transfer(context).hop.certificateRequested = true
    }

    /// OpenSSL's whole certificate verification for a connection: the policy's evaluation of
    /// the presented chain for the hop's server name. A rejection aborts the handshake.
    private static let verifyCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
        storeContext, context in
        guard let storeContext else { return 0 }
        let transfer = transfer(context)
        let sink = ChainSink()
        afn_store_ctx_presented_chain(storeContext, ChainSink.collect, Unmanaged.passUnretained(sink).toOpaque())
        let evaluation: TrustEvaluation
        do {
            evaluation = transfer.transport.policy.evaluation(of: try ServerTrust(derChain: sink.certificates), forDomain: transfer.hop.serverName)
        } catch {
            evaluation = .rejected(.invalidChain(reason: "the server's certificate could not be parsed: \(error)"))
        }
        transfer.hop.evaluation = evaluation
        guard evaluation.isTrusted else {
            afn_store_ctx_reject(storeContext)
            return 0
        }
        // The mark a response on this connection, now or on reuse, is taken by (`CurlHop.mayReceive`).
        _ = afn_store_ctx_mark_trusted(storeContext)
        return 1
    }

    /// The TLS version and cipher suite of the connection `ssl` (read while it is open).
    static func describe(_ ssl: UnsafeMutableRawPointer) -> (version: String, cipher: String)? {
        var version = [CChar](repeating: 0, count: 32)
        var cipher = [CChar](repeating: 0, count: 128)
        afn_ssl_describe(ssl, &version, version.count, &cipher, cipher.count)
        let text = { (buffer: [CChar]) in String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        return version[0] == 0 ? nil : (text(version), text(cipher))
    }
}
