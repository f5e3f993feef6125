import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Failures the session layer reports itself, each standing in for a Linux URLSession defect
/// that would otherwise hang, crash or lose data. Bridges to `NSError` in `NSURLErrorDomain`
/// with the closest `URLError` code.
public enum SessionError: Error, Sendable {
    /// A task was requested after `invalidateSession(cancelingTasks:resetSession:)`.
    /// URLSession on Linux kills the process instead. Code -999 (cancelled).
    case sessionInvalidated
    /// The server asked for credentials (`401` with a challenge) and none was configured, or
    /// the configured one was refused. URLSession on Linux would wait forever. Code -1013.
    case authenticationRequired(response: HTTPURLResponse?)
    /// A 307 or 308 redirect of a request with a body was not followed: URLSession's own
    /// protocol on Linux re-sends such a request with an empty body, and a one-shot
    /// `InputStream` cannot be sent again (libcurl re-sends every other body). The response is
    /// the redirect. Code -1007.
    case redirectWouldDropBody(response: HTTPURLResponse)
    /// The request body stream failed or ended before its declared length. Code -1021.
    case bodyStreamFailed(underlying: any Error)
    /// A download could not be written, or not moved to its destination. Code -3000 (cannot
    /// create file) or -3002 (cannot move file).
    case downloadFileFailed(reason: String, destination: URL?)
    /// Resume data that this library did not produce, that is for another URL, or whose
    /// partial file is gone, changed, or not a file of this user in the private download
    /// directory. Code -3003.
    case invalidResumeData(reason: String)
    /// A redirect was refused by the origin rules (`RedirectPolicy`): from TCP into a Unix domain
    /// socket, or from one socket to another. `response` is the redirect. Code -1002
    /// (unsupported URL).
    case redirectRefused(reason: String, response: HTTPURLResponse)
    /// The request cannot be sent as it is: its method or a header name is not an RFC 9110
    /// token, a header value (its own or the configuration's additional headers) holds CR, LF or
    /// NUL, or a timeout is NaN or negative. Nothing was sent. Code -1000 (bad URL).
    case invalidRequest(reason: String)
    /// The directory downloads are staged in (`$TMPDIR/AFNetworking-downloads-<uid>`) is not
    /// private: a link, not a directory, another user's, or open to others. Nothing is written
    /// there. Code -3000 (cannot create file).
    case unsafeDownloadDirectory(path: String, reason: String)
    /// A `ResponseCache`'s directory cannot be used: it cannot be made or opened, or it is not
    /// private (a link, not a directory, another user's, or open to others). Nothing is read or
    /// written there. Code -3000 (cannot create file).
    case unsafeCacheDirectory(path: String, reason: String)
    /// A `ResponseCache`'s directory is used by another cache, in this process or another, until
    /// that cache is gone: a caller may go on without a cache (a cache only saves requests),
    /// or try again later. Nothing is read or written there. Code -3000 (cannot create file).
    case cacheDirectoryInUse(path: String)
    /// A pinning `SecurityPolicy` was given to an `HTTPSessionManager` whose `baseURL` is not
    /// `https` (or is `nil`): nothing could be pinned. Code -1022.
    case pinningRequiresHTTPS(baseURL: URL?)
    /// The manager's `SecurityPolicy` cannot be enforced because libcurl or OpenSSL could not
    /// be loaded; the request is refused rather than sent unchecked. Code -1200.
    case securityPolicyUnavailable(reason: String)
    /// The response exceeded one of the task's `ResponseLimits`; the transfer was stopped.
    /// `declaredLength` is the `Content-Length` the server declared, if any (a declared length
    /// over the limit fails before the body is read). Code -1103 (data length exceeds maximum).
    case responseLimitExceeded(limit: ResponseLimits.Limit, declaredLength: Int64?, response: HTTPURLResponse?)
}

extension SessionError: CustomNSError, LocalizedError {
    /// `NSURLErrorDomain`, where URLSession's own errors live.
    public static var errorDomain: String { NSURLErrorDomain }

    /// The closest `URLError` code.
    public var errorCode: Int {
        switch self {
        case .sessionInvalidated: return URLError.cancelled.rawValue
        case .authenticationRequired: return URLError.userAuthenticationRequired.rawValue
        case .redirectWouldDropBody: return URLError.httpTooManyRedirects.rawValue
        case .bodyStreamFailed: return URLError.requestBodyStreamExhausted.rawValue
        case .downloadFileFailed(_, let destination):
            return destination == nil ? URLError.cannotCreateFile.rawValue : URLError.cannotMoveFile.rawValue
        case .invalidResumeData: return URLError.cannotOpenFile.rawValue
        case .unsafeDownloadDirectory, .unsafeCacheDirectory, .cacheDirectoryInUse: return URLError.cannotCreateFile.rawValue
        case .invalidRequest: return URLError.badURL.rawValue
        case .redirectRefused: return URLError.unsupportedURL.rawValue
        case .pinningRequiresHTTPS: return -1022 // NSURLErrorAppTransportSecurityRequiresSecureConnection, absent from corelibs
        case .securityPolicyUnavailable: return URLError.secureConnectionFailed.rawValue
        case .responseLimitExceeded: return URLError.Code.dataLengthExceedsMaximum.rawValue
        }
    }

    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .sessionInvalidated: return "The session was invalidated; no new task can be created."
        case .authenticationRequired(let response):
            return "Authentication required (\(response?.statusCode ?? 401)) and no usable credential was given."
        case .redirectWouldDropBody(let response):
            return "Redirect \(response.statusCode) of a request with a body was not followed: it would be re-sent without its body."
        case .bodyStreamFailed(let underlying): return "The request body stream failed: \(underlying.localizedDescription)"
        case .downloadFileFailed(let reason, let destination):
            return "The download could not be \(destination == nil ? "written" : "moved to \(destination!.path)"): \(reason)"
        case .invalidResumeData(let reason): return "Invalid resume data: \(reason)"
        case .invalidRequest(let reason): return "The request cannot be sent: \(reason)."
        case .redirectRefused(let reason, _): return "The redirect was refused: \(reason)."
        case .unsafeDownloadDirectory(let path, let reason): return "The download directory \(path) is not private: \(reason)"
        case .unsafeCacheDirectory(let path, let reason): return "The cache directory \(path) cannot be used: \(reason)"
        case .cacheDirectoryInUse(let path): return "The cache directory \(path) is used by another cache."
        case .pinningRequiresHTTPS(let baseURL):
            return "A pinning security policy needs an https base URL, not \(baseURL?.absoluteString ?? "none")."
        case .securityPolicyUnavailable(let reason): return "The security policy cannot be enforced: \(reason)"
        case .responseLimitExceeded(let limit, let declaredLength, _):
            let declared = declaredLength.map { " (the server declared \($0) bytes)" } ?? ""
            return "The response exceeded \(limit)\(declared)."
        }
    }

    /// The failing URL where there is one.
    public var errorUserInfo: [String: Any] {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: errorDescription ?? ""]
        switch self {
        case .authenticationRequired(let response?):
            userInfo[NSURLErrorFailingURLErrorKey] = response.url
        case .redirectWouldDropBody(let response), .redirectRefused(_, let response):
            userInfo[NSURLErrorFailingURLErrorKey] = response.url
        case .responseLimitExceeded(_, _, let response?):
            userInfo[NSURLErrorFailingURLErrorKey] = response.url
        case .bodyStreamFailed(let underlying):
            userInfo[NSUnderlyingErrorKey] = underlying as NSError
        default:
            break
        }
        return userInfo
    }
}
