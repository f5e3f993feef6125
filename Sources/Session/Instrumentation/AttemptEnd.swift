import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How an attempt of a task ended (`TaskObserver.didEnd(_:)`). Beyond AFNetworking.
public struct AttemptEnd: Sendable {
    /// What comes after the attempt.
    public enum Next: Sendable, Equatable {
        /// Nothing: the task completes with this attempt's outcome.
        case completion
        /// The redirect its response asked for is followed.
        case redirect
        /// The interceptors retry the task after `delay` seconds.
        case retry(after: TimeInterval)
    }

    /// The attempt, as it started.
    public var attempt: AttemptStart
    /// The request sent.
    public var request: URLRequest
    /// The response, if one arrived.
    public var response: HTTPURLResponse?
    /// Why the attempt failed, if it did (a response past its limits, a refused redirect, a
    /// transport error); `nil` when it was answered. A 4xx or 5xx is a `response`, not an error.
    public var error: (any Error)?
    /// What comes next.
    public var next: Next
    /// Request body bytes sent, when the transport measured them; 0 otherwise.
    public var requestBodyBytes: Int64
    /// Response body bytes received (as they arrived, before content decoding), when the
    /// transport measured them; 0 otherwise.
    public var responseBodyBytes: Int64
    /// The protocol as ALPN names it (`http/1.1`, `h2`), when a response arrived.
    public var networkProtocolName: String?
    /// Seconds from `willSend(_:attempt:)` to this end.
    public var duration: TimeInterval

    /// An attempt's end.
    public init(
        attempt: AttemptStart, request: URLRequest, response: HTTPURLResponse?, error: (any Error)?, next: Next,
        requestBodyBytes: Int64 = 0, responseBodyBytes: Int64 = 0, networkProtocolName: String? = nil, duration: TimeInterval
    ) {
        self.attempt = attempt
        self.request = request
        self.response = response
        self.error = error
        self.next = next
        self.requestBodyBytes = requestBodyBytes
        self.responseBodyBytes = responseBodyBytes
        self.networkProtocolName = networkProtocolName
        self.duration = duration
    }
}

extension AttemptEnd {
    /// OpenTelemetry's `error.type` of the attempt: the status code as text for a 4xx or 5xx
    /// (an HTTP client's errors by status), else the error's name (`errorType(of:)`), else `nil`
    /// for success (a 1xx to 3xx response).
    public var errorType: String? {
        if let error { return Self.errorType(of: error) }
        guard let status = response?.statusCode, status >= 400 else { return nil }
        return String(status)
    }

    /// OpenTelemetry's `network.protocol.version` of `networkProtocolName`: `1.1` for
    /// `http/1.1`, `2` for `h2`; `nil` when unknown.
    public var networkProtocolVersion: String? {
        switch networkProtocolName?.lowercased() {
        case "http/1.0": "1.0"
        case "http/1.1": "1.1"
        case "h2": "2"
        case "h3": "3"
        default: nil
        }
    }

    /// A low-cardinality name for `error`, without any of its values (no URL, no reason text):
    /// `URLError.cannotConnectToHost` (the code's name, or `URLError(-1234)` for a code not
    /// named here), `SessionError.redirectRefused` (an enumeration's case), else the type's name.
    public static func errorType(of error: any Error) -> String {
        if let error = error as? URLError { return urlErrorNames[error.code].map { "URLError.\($0)" } ?? "URLError(\(error.code.rawValue))" }
        let type = String(describing: Swift.type(of: error))
        let mirror = Mirror(reflecting: error)
        guard mirror.displayStyle == .enum else { return type }
        // A case with values is its mirror's one child; a case without is its own description.
        return "\(type).\(mirror.children.first?.label ?? String(describing: error))"
    }

    private static let urlErrorNames: [URLError.Code: String] = [
        .cancelled: "cancelled", .timedOut: "timedOut", .cannotFindHost: "cannotFindHost", .cannotConnectToHost: "cannotConnectToHost",
        .networkConnectionLost: "networkConnectionLost", .dnsLookupFailed: "dnsLookupFailed", .notConnectedToInternet: "notConnectedToInternet",
        .httpTooManyRedirects: "httpTooManyRedirects", .badServerResponse: "badServerResponse", .secureConnectionFailed: "secureConnectionFailed",
        .serverCertificateUntrusted: "serverCertificateUntrusted", .serverCertificateHasBadDate: "serverCertificateHasBadDate",
        .serverCertificateNotYetValid: "serverCertificateNotYetValid", .serverCertificateHasUnknownRoot: "serverCertificateHasUnknownRoot",
        .clientCertificateRejected: "clientCertificateRejected", .clientCertificateRequired: "clientCertificateRequired",
        .cannotParseResponse: "cannotParseResponse", .dataLengthExceedsMaximum: "dataLengthExceedsMaximum",
        .userAuthenticationRequired: "userAuthenticationRequired", .badURL: "badURL", .unsupportedURL: "unsupportedURL",
        .resourceUnavailable: "resourceUnavailable", .zeroByteResource: "zeroByteResource",
    ]
}
