import AFNetworking
import AFLocking
import Foundation

/// A progress consumer that takes 0.5 ms per call, fed by a 256 MiB download served at
/// 150 MiB/s (slower than the disk, so that only the consumer can make memory grow).
///
/// Baseline, measured in the same run: URLSession with a delegate that writes each chunk and
/// calls the consumer on the delegate queue, as a per-chunk progress callback does. URLSession
/// on Linux queues every data callback without back-pressure, so the body piles up in memory.
/// The manager writes on the delegate queue but hands progress to the consumer coalesced on
/// another queue (at most one call pending per task), so the consumer cannot make it grow.
/// Usage: slow-consumer-memory <bulk server base URL> [limit MiB, default 64]
enum SlowConsumerMemoryBenchmark {
    static let bodySize = 256 << 20
    static let rate = 150
    static let consumerDelay: TimeInterval = 0.0005

    static func run(_ arguments: [String]) throws -> Bool {
        guard let base = arguments.first, let url = URL(string: "\(base)/bytes/\(bodySize)?rate=\(rate)") else {
            print("usage: afn-benchmarks slow-consumer-memory <bulk server base URL> [limit MiB]")
            return false
        }
        let limit = UInt64(arguments.dropFirst().first.flatMap { Int($0) } ?? 64) << 20
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("afn-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let naive = try measure { try NaiveDownload.run(url, to: directory.appendingPathComponent("naive"), consumerDelay: consumerDelay) }
        let managed = try measure { try managedDownload(url, to: directory.appendingPathComponent("managed")) }

        print("slow_consumer_body: \(mebibytes(UInt64(bodySize))) MiB at \(rate) MiB/s, consumer \(consumerDelay * 1000) ms per call")
        print("baseline_urlsession_growth: \(mebibytes(naive.growth)) MiB (\(naive.calls) consumer calls, \(String(format: "%.1f", naive.seconds)) s)")
        print("manager_growth: \(mebibytes(managed.growth)) MiB (\(managed.calls) consumer calls, \(String(format: "%.1f", managed.seconds)) s; limit \(mebibytes(limit)) MiB)")
        print(String(format: "manager_growth_ratio_vs_baseline: %.3f", Double(managed.growth) / Double(max(naive.growth, 1))))
        let ok = naive.bytes == UInt64(bodySize) && managed.bytes == UInt64(bodySize) && managed.growth < limit
        print("slow-consumer-memory: \(ok ? "PASS" : "FAIL")")
        return ok
    }

    struct Measurement {
        var growth: UInt64
        var calls: Int
        var seconds: TimeInterval
        var bytes: UInt64
    }

    /// Runs `body` between a reset of the peak-RSS counter and a reading of it.
    private static func measure(_ body: () throws -> (calls: Int, bytes: UInt64)) throws -> Measurement {
        ResourceUsage.resetPeak()
        let before = ResourceUsage.residentBytes
        let start = Date()
        let (calls, bytes) = try body()
        let peak = ResourceUsage.peakResidentBytes
        return Measurement(growth: peak > before ? peak - before : 0, calls: calls, seconds: Date().timeIntervalSince(start), bytes: bytes)
    }

    private static func managedDownload(_ url: URL, to destination: URL) throws -> (calls: Int, bytes: UInt64) {
        let manager = URLSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let calls = Counter()
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        manager.resume(try manager.downloadTask(
            with: URLRequest(url: url),
            progress: { _ in
                calls.increment()
                Thread.sleep(forTimeInterval: consumerDelay)
            },
            destination: { _, _ in destination },
            completionHandler: { _, _, error in
                failure.withLock { $0 = error }
                done.signal()
            }))
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        return (calls.value, fileSize(destination))
    }
}

/// The baseline: a URLSession delegate that writes each chunk and calls the slow consumer on
/// the delegate queue.
final class NaiveDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every field is touched only on the session's serial delegate queue, and
    // read after `done` is signalled.
    private let handle: FileHandle
    private let consumerDelay: TimeInterval
    private let done = DispatchSemaphore(value: 0)
    private var calls = 0
    private var failure: (any Error)?

    private init(handle: FileHandle, consumerDelay: TimeInterval) {
        self.handle = handle
        self.consumerDelay = consumerDelay
    }

    static func run(_ url: URL, to file: URL, consumerDelay: TimeInterval) throws -> (calls: Int, bytes: UInt64) {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let delegate = NaiveDownload(handle: try FileHandle(forWritingTo: file), consumerDelay: consumerDelay)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        session.dataTask(with: url).resume()
        delegate.done.wait()
        session.finishTasksAndInvalidate()
        try delegate.handle.close()
        if let failure = delegate.failure { throw failure }
        return (delegate.calls, fileSize(file))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        do {
            try handle.write(contentsOf: data)
        } catch {
            failure = error
        }
        calls += 1
        Thread.sleep(forTimeInterval: consumerDelay)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        failure = failure ?? error
        done.signal()
    }
}

func fileSize(_ url: URL) -> UInt64 {
    ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.uint64Value ?? 0
}

/// A counter incremented from any thread.
final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
