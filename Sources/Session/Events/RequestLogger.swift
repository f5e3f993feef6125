import AFLocking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `EventMonitor` that writes one line per completed task: method, URL (secret query values
/// hidden), status or error, duration, body bytes received and attempts; optionally the request
/// headers of the last attempt, credential values hidden by `redaction`, and a line per retry.
/// Writes to standard error unless given another sink. Beyond AFNetworking
/// (`AFNetworkActivityLogger`, a separate project).
public final class RequestLogger: EventMonitor {
    /// Where the lines go.
    public typealias Sink = @Sendable (String) -> Void

    /// The serial queue the lines are written from.
    public let queue = DispatchQueue(label: "AFNetworking.logger")
    /// What is hidden. Default `Redaction()`.
    public let redaction: Redaction
    /// Whether each line lists the request's headers. Default `false`.
    public let includesHeaders: Bool
    /// Whether each retry gets a line of its own. Default `true`.
    public let logsRetries: Bool
    private let sink: Sink
    /// The last request sent for each task in flight (the adapted one).
    private let lastRequests = Locked<[ObjectIdentifier: URLRequest]>([:])

    /// A logger writing to `sink` (default: standard error, a line each).
    public init(redaction: Redaction = Redaction(), includesHeaders: Bool = false, logsRetries: Bool = true, sink: Sink? = nil) {
        self.redaction = redaction
        self.includesHeaders = includesHeaders
        self.logsRetries = logsRetries
        self.sink = sink ?? { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// Remembers the request as sent (adapted), for the task's line.
    public func task(_ task: URLSessionTask, willSend request: URLRequest, attempt: Int) {
        lastRequests.withLock { $0[ObjectIdentifier(task)] = request }
    }

    /// Writes a line for the failed attempt and the wait, unless `logsRetries` is `false`.
    public func task(_ task: URLSessionTask, willRetry context: RetryContext, after delay: TimeInterval) {
        guard logsRetries else { return }
        let outcome = context.response.map { "\($0.statusCode)" } ?? Self.describe(context.error)
        sink("\(describe(context.request)) -> \(outcome), attempt \(context.attempt); retrying in \(Self.milliseconds(delay)) ms")
    }

    /// Writes the task's line.
    public func task(_ task: URLSessionTask, didCompleteWith response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
        let sent = lastRequests.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        guard let request = sent ?? task.currentRequest ?? task.originalRequest else { return }
        let outcome = error.map(Self.describe) ?? response.map { "\($0.statusCode)" } ?? "no response"
        var line = "\(describe(request)) -> \(outcome), \(Self.milliseconds(metrics.duration)) ms, "
            + "\(metrics.countOfResponseBodyBytesReceived) bytes, attempt \(metrics.attemptCount)"
        if metrics.cacheOutcome != .notUsed { line += ", cache \(metrics.cacheOutcome)" }
        if includesHeaders {
            line += "; headers: " + redaction.headerFields(of: request).map { "\($0.name): \($0.value)" }.joined(separator: ", ")
        }
        sink(line)
    }

    /// Method and URL, secrets hidden.
    private func describe(_ request: URLRequest) -> String {
        "\(request.httpMethod ?? "GET") \(request.url.map(redaction.url) ?? "-")"
    }

    private static func describe(_ error: (any Error)?) -> String {
        guard let error = error.map({ $0 as NSError }) else { return "failed" }
        return "error \(error.code) (\(error.localizedDescription))"
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f", seconds * 1000)
    }
}
