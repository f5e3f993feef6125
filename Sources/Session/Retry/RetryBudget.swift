import AFLocking
import Foundation

/// Bounds the retries of a manager to a share of its requests over a sliding window, so that a
/// failing dependency is not hammered by every caller's retries at once (the budget of
/// Finagle and reqwest). A retry is allowed while the retries in the window stay below
/// `minimumRetriesPerSecond` times the window plus `ratio` times the requests in it.
/// Beyond AFNetworking.
public final class RetryBudget: Sendable {
    /// How far back requests and retries count, in seconds. Default 10.
    public let window: TimeInterval
    /// The share of requests that may be retried. Default 0.2.
    public let ratio: Double
    /// Retries allowed per second whatever the traffic, so a quiet client still retries.
    /// Default 10.
    public let minimumRetriesPerSecond: Double
    private let history = Locked<(requests: [TimeInterval], retries: [TimeInterval])>(([], []))

    /// A budget of `ratio` of the requests within `window` seconds, plus
    /// `minimumRetriesPerSecond`.
    public init(window: TimeInterval = 10, ratio: Double = 0.2, minimumRetriesPerSecond: Double = 10) {
        self.window = window
        self.ratio = ratio
        self.minimumRetriesPerSecond = minimumRetriesPerSecond
    }

    /// Counts a request (a first attempt) at `now`.
    public func recordRequest(at now: TimeInterval = ProcessInfo.processInfo.systemUptime) {
        history.withLock { history in
            history.requests.append(now)
            Self.prune(&history.requests, before: now - window)
        }
    }

    /// Takes a retry from the budget at `now`; `false` when the budget is spent.
    public func withdrawRetry(at now: TimeInterval = ProcessInfo.processInfo.systemUptime) -> Bool {
        history.withLock { history in
            Self.prune(&history.requests, before: now - window)
            Self.prune(&history.retries, before: now - window)
            let allowed = minimumRetriesPerSecond * window + ratio * Double(history.requests.count)
            guard Double(history.retries.count) + 1 <= allowed else { return false }
            history.retries.append(now)
            return true
        }
    }

    /// Drops the times before `start` (they are in order).
    private static func prune(_ times: inout [TimeInterval], before start: TimeInterval) {
        if let first = times.firstIndex(where: { $0 >= start }) {
            if first > 0 { times.removeFirst(first) }
        } else {
            times.removeAll(keepingCapacity: true)
        }
    }
}
