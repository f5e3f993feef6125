import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// libcurl's result for a failed transfer: its `CURLcode` and message. The libcurl transport
/// fails a task with the closest `URLError` (`urlErrorCode`) and keeps this value as the
/// error's underlying error (`NSUnderlyingErrorKey`), so that a caller can tell a reset from a
/// protocol error and log what libcurl said.
public struct CurlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libcurl's `CURLcode`, e.g. 7 for `CURLE_COULDNT_CONNECT`.
    public let code: Int32
    /// libcurl's message for the failure (its error buffer, or `curl_easy_strerror`).
    public let message: String

    /// A result `code` with libcurl's `message`.
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// "curl error CODE: MESSAGE".
    public var description: String { "curl error \(code): \(message)" }

    /// The `URLError` code URLSession reports for the same failure; `.unknown` for results
    /// that have none.
    public var urlErrorCode: URLError.Code {
        switch code {
        // CURLE_UNSUPPORTED_PROTOCOL: the transport refuses other schemes before libcurl sees
        // them, so it means a reply that is not HTTP (HTTP/0.9, which libcurl refuses).
        case 1: return .badServerResponse
        case 3: return .badURL // CURLE_URL_MALFORMAT
        case 5, 6: return .cannotFindHost // CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST
        case 7: return .cannotConnectToHost // CURLE_COULDNT_CONNECT
        case 8: return .badServerResponse // CURLE_WEIRD_SERVER_REPLY
        case 16, 92: return .networkConnectionLost // CURLE_HTTP2, CURLE_HTTP2_STREAM
        case 18: return .networkConnectionLost // CURLE_PARTIAL_FILE: body shorter than declared
        case 26: return .requestBodyStreamExhausted // CURLE_READ_ERROR: the body could not be read
        case 28: return .timedOut // CURLE_OPERATION_TIMEDOUT
        case 35: return .secureConnectionFailed // CURLE_SSL_CONNECT_ERROR
        case 42: return .cancelled // CURLE_ABORTED_BY_CALLBACK
        case 47: return .httpTooManyRedirects // CURLE_TOO_MANY_REDIRECTS
        case 52: return .networkConnectionLost // CURLE_GOT_NOTHING: closed before a response
        case 55, 56: return .networkConnectionLost // CURLE_SEND_ERROR, CURLE_RECV_ERROR
        case 58: return .clientCertificateRejected // CURLE_SSL_CERTPROBLEM
        case 60: return .serverCertificateUntrusted // CURLE_PEER_FAILED_VERIFICATION
        case 61: return .cannotDecodeContentData // CURLE_BAD_CONTENT_ENCODING
        case 63: return .dataLengthExceedsMaximum // CURLE_FILESIZE_EXCEEDED
        case 77: return .secureConnectionFailed // CURLE_SSL_CACERT_BADFILE
        case 95: return .cannotParseResponse // CURLE_HTTP3
        case 97: return .cannotConnectToHost // CURLE_PROXY: the proxy's handshake failed
        default: return .unknown
        }
    }

    /// The TLS alert the server sent, if the failure was one: read from OpenSSL's packed error
    /// code in libcurl's message ("error:0A00045C:" is library 20, SSL, reason 1116, which is
    /// 1000 + alert 116, certificate_required). OpenSSL 3 packs the library from bit 23 and the
    /// reason below it; 1.1.1 the library from bit 24, a function, and the reason in the low 12
    /// bits ("error:1409445C:").
    public var receivedTLSAlert: Int? {
        guard let range = message.range(of: "error:") else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isHexDigit }
        guard digits.count == 8, let packed = UInt32(digits, radix: 16) else { return nil }
        let reason: Int
        if packed >> 23 == 20 {
            reason = Int(packed & 0x7F_FFFF)
        } else if packed >> 24 == 20 {
            reason = Int(packed & 0xFFF)
        } else {
            return nil
        }
        guard (1000..<1256).contains(reason) else { return nil }
        return reason - 1000
    }

    /// The alerts a server sends about the client's certificate: bad_certificate,
    /// unsupported_certificate, certificate_revoked, certificate_expired, certificate_unknown,
    /// unknown_ca, access_denied.
    private static let certificateRejections: Set<Int> = [42, 43, 44, 45, 46, 48, 49]

    /// `urlErrorCode`, or for a TLS failure the client-certificate code: `presentedIdentity`
    /// says whether the transfer had an identity to present, `certificateRequested` whether a
    /// server asked for one when it had none.
    func urlErrorCode(presentedIdentity: Bool, certificateRequested: Bool) -> URLError.Code {
        guard [35, 55, 56].contains(code) else { return urlErrorCode }
        let alert = receivedTLSAlert
        if !presentedIdentity, alert == 116 || (certificateRequested && (code == 35 || alert != nil)) {
            return .clientCertificateRequired
        }
        if presentedIdentity, let alert, Self.certificateRejections.contains(alert) || alert == 116 {
            return .clientCertificateRejected
        }
        return urlErrorCode
    }
}
