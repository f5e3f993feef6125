import AFLocking
import AFNetworking
import Foundation

/// A 1 GiB gzip bomb (about 1 MiB on the wire) from the fault server, fetched as a data task
/// with the default `ResponseLimits`: the task must fail with the decompression limit and the
/// process's peak resident memory stay under 64 MiB. Baseline, in the same run: the same bomb
/// with the ratio limit off, stopped only by the default 256 MiB body limit.
/// Usage: `afn-benchmarks gzip-bomb-memory <fault server URL> [peak limit MiB, default 64]`.
enum GzipBombMemoryBenchmark {
    static func run(_ arguments: [String]) throws -> Bool {
        guard let base = arguments.first, let url = URL(string: base + "/gzip-bomb/1073741824") else {
            print("usage: afn-benchmarks gzip-bomb-memory <fault server URL> [peak limit MiB]")
            return false
        }
        let limit = UInt64(arguments.dropFirst().first.flatMap { Int($0) } ?? 64) << 20
        let residentBefore = ResourceUsage.residentBytes
        ResourceUsage.resetPeak()
        let limited = fetch(url, limits: .default)
        let peak = ResourceUsage.peakResidentBytes
        ResourceUsage.resetPeak()
        var withoutRatio = ResponseLimits.default
        withoutRatio.maximumDecompressionRatio = nil
        let baseline = fetch(url, limits: withoutRatio)
        let baselinePeak = ResourceUsage.peakResidentBytes

        print("gzip_bomb_resident_before: \(mebibytes(residentBefore)) MiB")
        print("gzip_bomb_stopped_by: \(stopReason(limited))")
        print("gzip_bomb_peak_resident: \(mebibytes(peak)) MiB (limit \(mebibytes(limit)) MiB)")
        print("baseline_body_limit_only_stopped_by: \(stopReason(baseline))")
        print("baseline_body_limit_only_peak_resident: \(mebibytes(baselinePeak)) MiB")
        print(String(format: "gzip_bomb_peak_ratio_vs_baseline: %.2f", Double(peak) / Double(max(baselinePeak, 1))))
        let stoppedByRatio: Bool
        if case .responseLimitExceeded(.decompressionRatio, _, _)? = limited as? SessionError { stoppedByRatio = true } else { stoppedByRatio = false }
        let ok = stoppedByRatio && peak < limit
        print("gzip-bomb-memory: \(ok ? "PASS" : "FAIL")")
        return ok
    }

    /// The limit that stopped a task, or its error.
    private static func stopReason(_ error: (any Error)?) -> String {
        guard let error else { return "nothing: the body arrived" }
        if case .responseLimitExceeded(let limit, _, _)? = error as? SessionError { return "\(limit)" }
        return "\(error)"
    }

    /// The task's error, or `nil` when it succeeded.
    private static func fetch(_ url: URL, limits: ResponseLimits) -> (any Error)? {
        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        manager.responseLimits = limits
        defer { manager.invalidateSession(cancelingTasks: true) }
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        do {
            manager.resume(try manager.dataTask(with: URLRequest(url: url)) { _, _, error in
                failure.withLock { $0 = error }
                done.signal()
            })
        } catch {
            return error
        }
        done.wait()
        return failure.withLock { $0 }
    }
}
