import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a retry could not be made.
public enum RetryError: Error, Sendable {
    /// The request failed in a way the policy retries, but its body was a one-shot stream that
    /// was already sent; `underlying` is the attempt's failure, or, when an interceptor retried a
    /// status response (`RetryPolicy` does not retry one of such a request), a
    /// `URLError(.requestBodyStreamExhausted)` naming the status. Code -1021 (request body
    /// stream exhausted).
    case bodyCannotBeReplayed(underlying: any Error)
}

extension RetryError: CustomNSError, LocalizedError {
    /// `NSURLErrorDomain`, where URLSession's own errors live.
    public static var errorDomain: String { NSURLErrorDomain }

    /// -1021 (request body stream exhausted).
    public var errorCode: Int { URLError.requestBodyStreamExhausted.rawValue }

    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .bodyCannotBeReplayed(let underlying):
            return "Not retried: the request body is a stream that cannot be sent again (\(underlying.localizedDescription))."
        }
    }

    /// The underlying error.
    public var errorUserInfo: [String: Any] {
        switch self {
        case .bodyCannotBeReplayed(let underlying):
            return [NSLocalizedDescriptionKey: errorDescription ?? "", NSUnderlyingErrorKey: underlying as NSError]
        }
    }
}
