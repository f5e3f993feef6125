import OpenSSLBridge
import Foundation

/// Verifies certificate chains as a TLS server's with the OpenSSL that FoundationNetworking
/// loads, as libssl and curl do: signatures, validity dates, CA and name constraints, path
/// lengths, critical extensions, the key usage and extended key usage a TLS server needs, and
/// key and digest strength, up to a trust anchor. Hostnames are checked in Swift
/// (`Certificate.matches(hostname:)`).
enum ChainVerifier {
    /// Loads the libraries once; the reason they cannot be used, or `nil`.
    static let unavailableReason: String? = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard afn_openssl_load(&buffer, buffer.count) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// The verified chain (leaf to anchor) of `chain`, against `anchors` or, when empty, the
    /// system's trust store; with `partialChains`, any trusted certificate ends a chain.
    static func verify(_ chain: [Certificate], anchors: [Certificate], partialChains: Bool) -> Result<[Data], TrustFailure> {
        if let reason = unavailableReason { return .failure(.verifierUnavailable(reason: reason)) }
        guard !chain.isEmpty else { return .failure(.noCertificates) }
        let sink = ChainSink()
        let status = withDERArrays(chain.map(\.derEncoded)) { chainPointers, chainLengths in
            withDERArrays(anchors.map(\.derEncoded)) { anchorPointers, anchorLengths in
                afn_verify_chain(chainPointers, chainLengths, Int32(chain.count), anchorPointers, anchorLengths,
                                 Int32(anchors.count), partialChains ? 1 : 0, ChainSink.collect, Unmanaged.passUnretained(sink).toOpaque())
            }
        }
        switch status {
        case 0: return .success(sink.certificates)
        case -1: return .failure(.invalidChain(reason: "a certificate could not be decoded"))
        default:
            let reason = String(cString: afn_verify_error_string(status))
            switch status {
            // X509_V_ERR_CERT_NOT_YET_VALID, _CERT_HAS_EXPIRED
            case 9, 10: return .failure(.certificateDateInvalid(reason: reason))
            // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, _DEPTH_ZERO_SELF_SIGNED_CERT,
            // _SELF_SIGNED_CERT_IN_CHAIN, _UNABLE_TO_GET_ISSUER_CERT_LOCALLY
            case 2, 18, 19, 20: return .failure(.unknownRoot(reason: reason))
            // X509_V_ERR_INVALID_PURPOSE: the key usage or extended key usage of a certificate
            // of the chain does not allow a TLS server.
            case 26: return .failure(.notForServerAuthentication(reason: reason))
            default: return .failure(.invalidChain(reason: reason))
            }
        }
    }

    private static func withDERArrays<R>(
        _ ders: [Data], _ body: (UnsafePointer<UnsafePointer<UInt8>?>, UnsafePointer<Int32>) -> R
    ) -> R {
        let buffers = ders.map { der -> UnsafeMutableBufferPointer<UInt8> in
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(der.count, 1))
            _ = buffer.initialize(from: der)
            return buffer
        }
        defer { buffers.forEach { $0.deallocate() } }
        // One placeholder keeps the arrays' base addresses non-nil when there is no certificate.
        let pointers: [UnsafePointer<UInt8>?] = buffers.map { UnsafePointer($0.baseAddress) } + [nil]
        let lengths = ders.map { Int32($0.count) } + [0]
        return pointers.withUnsafeBufferPointer { pointerBuffer in
            lengths.withUnsafeBufferPointer { lengthBuffer in
                body(pointerBuffer.baseAddress!, lengthBuffer.baseAddress!)
            }
        }
    }
}

/// Collects DER certificates handed over by the C bridge.
package final class ChainSink {
    package private(set) var certificates: [Data] = []

    package init() {}

    package static let collect: afn_der_sink = { der, length, context in
        guard let der, let context else { return }
        Unmanaged<ChainSink>.fromOpaque(context).takeUnretainedValue().certificates.append(Data(bytes: der, count: Int(length)))
    }
}
