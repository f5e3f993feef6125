import AFNetworking
import Foundation

/// Upload and download progress on stderr: a live bar with rate, percent and ETA when stderr
/// is a terminal, one summary line at the end otherwise.
final class ProgressDisplay: @unchecked Sendable {
    // @unchecked: `lastDraw` and `last` are only touched under `lock`.
    private let lock = NSLock()
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var last = TransferProgress(completedBytes: 0, totalBytes: -1)
    private let verb: String

    init(verb: String) { self.verb = verb }

    func update(_ progress: TransferProgress) {
        lock.lock()
        defer { lock.unlock() }
        last = progress
        guard isTerminal, Date().timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = Date()
        FileHandle.standardError.write(Data(("\r" + line(progress)).utf8))
    }

    /// A manager progress handler that updates the display.
    var progressHandler: URLSessionManager.ProgressHandler {
        { [self] progress in update(TransferProgress(completedBytes: progress.completedUnitCount, totalBytes: progress.totalUnitCount)) }
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardError.write(Data(((isTerminal ? "\r" : "") + line(last) + "\n").utf8))
    }

    private func line(_ progress: TransferProgress) -> String {
        let seconds = max(Date().timeIntervalSince(start), 0.001)
        let rate = Double(progress.completedBytes) / seconds
        var text = "\(verb) \(Self.size(progress.completedBytes))"
        // `fractionCompleted` is clamped to 0...1, so the bar's counts are never negative.
        if let fraction = progress.fractionCompleted {
            let width = 24
            let filled = min(max(Int(fraction * Double(width)), 0), width)
            let eta = rate > 0 ? Double(max(progress.totalBytes - progress.completedBytes, 0)) / rate : 0
            text += " of \(Self.size(progress.totalBytes)) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))]"
            text += String(format: " %3.0f%% ETA %.0fs", fraction * 100, eta)
        }
        return text + " at \(Self.size(Int64(rate)))/s"
    }

    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
