import AFNetworking
import AFLocking
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bodies consumed through `URLSessionManager.stream(for:)` from the local bulk server
/// (`scripts/bulk_server.py`, unthrottled):
/// - `streamed_1gib_slow_consumer`: 1 GiB through the sequence to a consumer that takes
///   1 ms per MiB (about 1 GiB/s at most, slower than the loopback), its peak resident growth
///   against the 64 MiB limit;
/// - `get_10mb_x80_8_in_flight`: 80 bodies of 10 MB, 8 at a time, kept in memory by data tasks
///   (the baseline) and consumed through the sequence, in five alternating rounds; the medians'
///   ratio against the 0.8 target.
/// Usage: streaming <bulk server base URL> [limit MiB, default 64]
enum StreamingBenchmark {
    static func run(_ arguments: [String]) throws -> Bool {
        guard let base = arguments.first.flatMap(URL.init(string:)) else {
            print("usage: afn-benchmarks streaming <bulk server base URL> [limit MiB]")
            return false
        }
        let limit = UInt64(arguments.dropFirst().first.flatMap { Int($0) } ?? 64) << 20

        let gibibyte = 1 << 30
        ResourceUsage.resetPeak()
        let before = ResourceUsage.residentBytes
        let start = Date()
        let received = try blocking { try await slowConsumer(base.appendingPathComponent("bytes/\(gibibyte)")) }
        let seconds = Date().timeIntervalSince(start)
        let peak = ResourceUsage.peakResidentBytes
        let growth = peak > before ? peak - before : 0
        print(String(format: "streamed_1gib_slow_consumer: %d MiB/s, peak growth %@ MiB (limit %@ MiB)",
                     Int(Double(received) / 1_048_576 / seconds), mebibytes(growth), mebibytes(limit)))

        let small = base.appendingPathComponent("bytes/\(10_000_000)")
        var inMemory: [TimeInterval] = []
        var streamed: [TimeInterval] = []
        let runInMemory = { inMemory.append(try timed { try ManagedTransfers.gets(small, count: 80, inFlight: 8) }) }
        let runStreamed = { streamed.append(try timed { try blocking { try await streamedGets(small, count: 80, inFlight: 8) } }) }
        for round in 0..<5 {
            for run in round.isMultiple(of: 2) ? [runInMemory, runStreamed] : [runStreamed, runInMemory] { try run() }
        }
        let median = { (rounds: [TimeInterval]) in rounds.sorted()[rounds.count / 2] }
        let rate = { (seconds: TimeInterval) in Int(Double(80 * 10_000_000) / 1_048_576 / seconds) }
        let ratio = median(inMemory) / median(streamed)
        print("get_10mb_x80_8_in_flight_in_memory: \(rate(median(inMemory))) MiB/s (rounds: \(inMemory.map { String(rate($0)) }.joined(separator: ", ")))")
        print("get_10mb_x80_8_in_flight_streamed: \(rate(median(streamed))) MiB/s (rounds: \(streamed.map { String(rate($0)) }.joined(separator: ", ")))")
        print(String(format: "get_10mb_x80_streamed_ratio_vs_in_memory: %.2f (target >= 0.8)", ratio))
        let ok = received == gibibyte && growth < limit && ratio >= 0.8
        print("streaming: \(ok ? "PASS" : "FAIL")")
        return ok
    }

    /// Consumes `url`'s body through the sequence, 1 ms per MiB; returns the bytes consumed.
    private static func slowConsumer(_ url: URL) async throws -> Int {
        let manager = URLSessionManager(configuration: benchmarkConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        let streamed = try await manager.stream(for: URLRequest(url: url))
        var received = 0
        var owed = 0.0
        for try await chunk in streamed.body {
            received += chunk.count
            owed += Double(chunk.count) / 1_048_576 * 0.001
            if owed >= 0.005 {
                usleep(UInt32(owed * 1_000_000))
                owed = 0
            }
        }
        return received
    }

    /// `count` GETs of `url`, `inFlight` at a time, each body consumed through the sequence and
    /// counted.
    private static func streamedGets(_ url: URL, count: Int, inFlight: Int) async throws {
        let manager = URLSessionManager(configuration: benchmarkConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var started = 0
            func startOne() {
                group.addTask {
                    let streamed = try await manager.stream(for: URLRequest(url: url))
                    var bytes = 0
                    for try await chunk in streamed.body { bytes += chunk.count }
                    guard bytes == 10_000_000 else { throw URLError(.cannotParseResponse) }
                }
                started += 1
            }
            while started < min(inFlight, count) { startOne() }
            while try await group.next() != nil {
                if started < count { startOne() }
            }
        }
    }

    private static func timed(_ body: () throws -> Void) throws -> TimeInterval {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    /// Runs `body` to its end from synchronous code.
    private static func blocking<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        let result = Locked<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let value = try await body()
                result.withLock { $0 = .success(value) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }!.get()
    }
}
