import Foundation

/// Process figures read from `/proc/self/status`.
enum ResourceUsage {
    /// Peak resident set size so far (`VmHWM`), in bytes.
    static var peakResidentBytes: UInt64 { statusField("VmHWM") }

    /// Another process's peak resident set size, 0 once it is gone.
    static func peakResidentBytes(of pid: pid_t) -> UInt64 { statusField("VmHWM", path: "/proc/\(pid)/status") }

    /// Resets the peak (`VmHWM`) to the current resident size, so that a phase of a benchmark
    /// can be measured on its own (Linux 4.0 and later).
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// Current resident set size (`VmRSS`), in bytes.
    static var residentBytes: UInt64 { statusField("VmRSS") }

    private static func statusField(_ name: String, path: String = "/proc/self/status") -> UInt64 {
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
            return (kilobytes.flatMap { UInt64($0) } ?? 0) * 1024
        }
        return 0
    }
}

func mebibytes(_ bytes: UInt64) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
