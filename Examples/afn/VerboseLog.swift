import AFNetworking
import Foundation

/// `--verbose`: each attempt's request line and headers (credentials hidden), each retry, the
/// timing of every phase of every exchange, and what the cache did, on stderr.
final class VerboseLog: EventMonitor {
    let queue = DispatchQueue(label: "afn.verbose")
    private let redaction = Redaction()

    func task(_ task: URLSessionTask, willSend request: URLRequest, attempt: Int) {
        var lines = ["> \(request.httpMethod ?? "GET") \(request.url.map(redaction.url) ?? "")\(attempt > 1 ? " (attempt \(attempt))" : "")"]
        lines += redaction.headerFields(of: request).map { "> \($0.name): \($0.value)" }
        write(lines)
    }

    func task(_ task: URLSessionTask, willRetry context: RetryContext, after delay: TimeInterval) {
        let outcome = context.response.map { "HTTP \($0.statusCode)" } ?? (context.error as NSError?)?.localizedDescription ?? "failed"
        write(["* attempt \(context.attempt): \(outcome); retrying in \(String(format: "%.2f", delay)) s"])
    }

    func task(_ task: URLSessionTask, didCompleteWith response: HTTPURLResponse?, error: (any Error)?, metrics: TaskMetrics) {
        let cache = metrics.cacheOutcome == .notUsed ? [] : ["* cache \(metrics.cacheOutcome)"]
        write(metrics.transactionMetrics.map(Self.describe) + cache)
    }

    /// Waits until every line queued so far is written.
    func flush() {
        queue.sync {}
    }

    /// One exchange: its attempt, protocol, connection and the milliseconds at which each phase
    /// ended, counted from its start.
    private static func describe(_ exchange: TransactionMetrics) -> String {
        let start = exchange.fetchStartDate
        let phases: [(String, Date?)] = [
            ("dns", exchange.domainLookupEndDate), ("connect", exchange.connectEndDate), ("tls", exchange.secureConnectionEndDate),
            ("sent", exchange.requestEndDate), ("first byte", exchange.responseStartDate), ("end", exchange.responseEndDate),
        ]
        let timings = phases.compactMap { name, date in date.map { "\(name) \(String(format: "%.1f", $0.timeIntervalSince(start) * 1000)) ms" } }
        let connection = exchange.isReusedConnection ? "reused connection" : "new connection"
        let address = exchange.remoteAddress.map { " to \($0):\(exchange.remotePort ?? 0)" } ?? ""
        return "* attempt \(exchange.attempt) \(exchange.url?.path ?? ""): \(exchange.networkProtocolName ?? "?"), \(connection)\(address); "
            + timings.joined(separator: ", ")
    }

    private func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
