import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which timeout ended a task, in the `userInfo` of its `URLError.timedOut` under
/// `TimeoutKind.errorUserInfoKey` (libcurl transport). Beyond AFNetworking.
public enum TimeoutKind: String, Sendable, Hashable {
    /// No connection (and TLS handshake) within `URLSessionManager.connectTimeout`.
    case connect
    /// No byte received or sent for the request's `timeoutInterval` (or the configuration's
    /// `timeoutIntervalForRequest`).
    case idle
    /// The whole task, redirects included, outlasted its total timeout (the configuration's
    /// `timeoutIntervalForResource`, or `setTotalTimeout(_:for:)`).
    case total

    /// The `userInfo` key of the kind's raw value.
    public static let errorUserInfoKey = "AFNetworkingTimeoutKind"
}

/// The three timeouts of one libcurl transfer, to the millisecond: what each hop (a redirect
/// or a Basic retry starts a new one) asks of libcurl, and which timeout a libcurl timeout was.
/// Infinity and values too large for libcurl (over `longest`) mean no limit; NaN and negative
/// values are refused before a task is made (`RequestValidation`). Pure: tested without a server.
package struct TransferTimeouts: Equatable {
    /// The longest timeout kept as a limit, about 31 years: anything longer (`.infinity`,
    /// `Double.greatestFiniteMagnitude`) is no limit rather than a number that traps.
    package static let longest: TimeInterval = 1e9
    /// libcurl's longest connect timeout, used for "no limit" (its 0 means its own 300 s).
    static let unlimitedMilliseconds = Int(Int32.max)

    /// How long a connection may take to establish; `nil` for no limit.
    let connect: TimeInterval?
    /// How long the transfer may go without a byte in either direction; `nil` for no limit.
    let idle: TimeInterval?
    /// How long the whole transfer may take; `nil` for no limit.
    let total: TimeInterval?

    init(connect: TimeInterval, idle: TimeInterval, total: TimeInterval?) {
        self.connect = Self.limit(connect)
        self.idle = Self.limit(idle)
        self.total = total.flatMap(Self.limit)
    }

    /// `seconds` as a limit, or `nil` for none.
    static func limit(_ seconds: TimeInterval) -> TimeInterval? {
        seconds.isFinite && seconds >= 0 && seconds <= longest ? seconds : nil
    }

    /// libcurl's connect and total timeouts in milliseconds for a hop starting `elapsed` seconds
    /// into the transfer, or `nil` when the total timeout has already run out. A total of 0
    /// milliseconds means none (libcurl's convention).
    func hopMilliseconds(elapsed: TimeInterval) -> (connect: Int, total: Int)? {
        let connect = connect.map(Self.milliseconds) ?? Self.unlimitedMilliseconds
        guard let total else { return (connect, 0) }
        let remaining = Self.milliseconds(total - elapsed)
        return remaining > 0 ? (min(connect, remaining), remaining) : nil
    }

    /// Which timeout a libcurl timeout (result 28) of a hop was, given how long the hop ran and
    /// the total milliseconds it was given (0 for none): the total when the hop ran its total
    /// budget out, otherwise the connect timeout (the transfer's own timer enforces idleness).
    static func kindOfLibcurlTimeout(hopElapsed: TimeInterval, hopTotalMilliseconds: Int) -> TimeoutKind {
        hopTotalMilliseconds > 0 && milliseconds(hopElapsed) >= hopTotalMilliseconds - 20 ? .total : .connect
    }

    /// The error a task ends with when the `kind` timeout ran out for `url`.
    func error(_ kind: TimeoutKind, url: URL?) -> URLError {
        let seconds: TimeInterval = switch kind {
        case .connect: connect ?? 0
        case .idle: idle ?? 0
        case .total: total ?? 0
        }
        let what = switch kind {
        case .connect: "no connection within"
        case .idle: "no data for"
        case .total: "not complete within"
        }
        var userInfo: [String: Any] = [
            NSLocalizedDescriptionKey: String(format: "The request timed out: %@ %.3f s (%@ timeout).", what, seconds, kind.rawValue),
            TimeoutKind.errorUserInfoKey: kind.rawValue,
        ]
        userInfo[NSURLErrorFailingURLErrorKey] = url
        return URLError(.timedOut, userInfo: userInfo)
    }

    /// Whole milliseconds, rounded up; `seconds` is within `longest`, or elapsed time.
    private static func milliseconds(_ seconds: TimeInterval) -> Int {
        Int((min(seconds, longest) * 1000).rounded(.up))
    }
}
