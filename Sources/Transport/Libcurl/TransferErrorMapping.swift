import AFSecurity
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLError` a failed hop ends with, from what the hop learnt: the policy's rejection of
/// the server's chain first, then a proxy's failure, a response that cannot be read safely, a
/// timeout (named by kind), and otherwise libcurl's result (with the client-certificate codes).
/// Pure: tested without libcurl.
struct TransferErrorMapping {
    /// The request's URL (the error's failing URL and the host named in messages).
    var url: URL?
    var curlCode: Int32
    /// libcurl's message for the failure (its error buffer, or `curl_easy_strerror`).
    var message: String
    var evaluation: TrustEvaluation?
    /// A response arrived on an https connection that no evaluation of the policy trusted.
    var untrustedConnection = false
    /// Whether the policy pins (a rejected chain is then `.serverCertificateUntrusted`'s pinning code).
    var pins = false
    var proxyFailure: ProxyError?
    var framingFault: ResponseFramingError?
    /// Whether a response head was complete, and whether any byte of one arrived.
    var receivedResponse = false
    var receivedResponseBytes = false
    /// For a libcurl timeout: which one it was.
    var timeout: (kind: TimeoutKind, timeouts: TransferTimeouts)?
    var presentedIdentity = false
    var certificateRequested = false

    /// The error.
    var error: URLError {
        var userInfo: [String: Any] = [:]
        userInfo[NSURLErrorFailingURLErrorKey] = url
        if let evaluation, let failure = evaluation.failure {
            userInfo[NSLocalizedDescriptionKey] = "The certificate of \(url?.host ?? "the server") was rejected: \(failure)"
            userInfo[TrustEvaluation.errorUserInfoKey] = evaluation
            userInfo[NSUnderlyingErrorKey] = failure
            return URLError(failure.urlErrorCode(pinning: pins), userInfo: userInfo)
        }
        if untrustedConnection {
            userInfo[NSLocalizedDescriptionKey] =
                "No evaluation of the security policy trusted the connection to \(url?.host ?? "the server"): its response was refused"
            return URLError(.serverCertificateUntrusted, userInfo: userInfo)
        }
        if let proxyFailure {
            userInfo[NSLocalizedDescriptionKey] = proxyFailure.errorDescription
            userInfo[NSUnderlyingErrorKey] = proxyFailure
            return URLError(proxyFailure.urlErrorCode, userInfo: userInfo)
        }
        // libcurl refuses a header line over 100 KiB as out of memory (7.x) or as too large (8.x).
        let headerTooLarge = [CurlCode.outOfMemory, CurlCode.tooLarge].contains(curlCode) && !receivedResponse && receivedResponseBytes
        let fault = framingFault ?? (headerTooLarge ? .headerLineTooLong : nil)
        if let fault {
            userInfo[NSLocalizedDescriptionKey] = "The server's response cannot be read safely: \(fault)"
            userInfo[NSUnderlyingErrorKey] = fault
            return URLError(.badServerResponse, userInfo: userInfo)
        }
        if curlCode == CurlCode.operationTimedOut, let timeout {
            return timeout.timeouts.error(timeout.kind, url: url)
        }
        let curlError = CurlError(code: curlCode, message: message)
        let code = curlError.urlErrorCode(presentedIdentity: presentedIdentity, certificateRequested: certificateRequested)
        userInfo[NSLocalizedDescriptionKey] = switch code {
        case .clientCertificateRequired: "\(url?.host ?? "The server") requires a client certificate (\(curlError.message))"
        case .clientCertificateRejected: "\(url?.host ?? "The server") rejected the client certificate (\(curlError.message))"
        default: curlError.message
        }
        userInfo[NSUnderlyingErrorKey] = curlError
        return URLError(code, userInfo: userInfo)
    }

    /// The error of a hop that ended inside a response's head (libcurl took it for a response).
    static func connectionClosedInHead(url: URL?) -> URLError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: "The connection closed before the end of the response's head"]
        userInfo[NSURLErrorFailingURLErrorKey] = url
        return URLError(.networkConnectionLost, userInfo: userInfo)
    }

    /// The error of a request the transport cannot send (`code`: `.unsupportedURL`,
    /// `.requestBodyStreamExhausted`, `.unknown`).
    static func refused(_ code: URLError.Code, url: URL?) -> URLError {
        var userInfo: [String: Any] = [:]
        userInfo[NSURLErrorFailingURLErrorKey] = url
        return URLError(code, userInfo: userInfo)
    }
}
