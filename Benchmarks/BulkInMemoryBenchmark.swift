import Foundation

/// Throughput and peak memory growth of 80 GETs of 10 MB from the local bulk server
/// (`scripts/bulk_server.py`, unthrottled), 8 in flight, each body kept in memory and its
/// length checked: `URLSessionManager` data tasks with `HTTPResponseSerializer` (as the
/// transfer benchmark's in-memory GETs) against, as the baseline in the same run, libcurl's
/// multi interface driven directly (`CurlLoopClient`). Five rounds, each client first in turn;
/// the median of each, each round's ratio, failures, and the manager's peak resident growth as
/// a multiple of the bytes in flight (8 x 10 MB).
/// Usage: bulk-in-memory <bulk server base URL>
enum BulkInMemoryBenchmark {
    static let bodyLength = 10_000_000
    static let count = 80
    static let inFlight = 8
    static let rounds = 5
    /// The targets: the manager's throughput against the loop's, and its growth over the bytes in flight.
    static let targetRatio = 0.9
    static let targetGrowthOverInFlight = 1.3

    static func run(_ arguments: [String]) throws -> Bool {
        guard arguments.count == 1, let base = URL(string: arguments[0]) else {
            print("usage: afn-benchmarks bulk-in-memory <bulk server base URL>")
            return false
        }
        let url = base.appendingPathComponent("bytes/\(bodyLength)")
        var managerRounds: [TransferBenchmark.Measurement] = []
        var loopRounds: [TransferBenchmark.Measurement] = []
        var managerFailures = 0
        var loopFailures = 0
        let runManager = {
            managerRounds.append(try TransferBenchmark.measure {
                managerFailures += try ManagedTransfers.failedGets(url, count: count, inFlight: inFlight)
            })
        }
        let runLoop = {
            loopRounds.append(try TransferBenchmark.measure {
                let client = try CurlLoopClient(url: url, expectedBodyLength: bodyLength)
                defer { client.close() }
                loopFailures += fanOut(count: count, inFlight: inFlight) { _, done in client.get(done) }
            })
        }
        for round in 0..<rounds {
            for run in round.isMultiple(of: 2) ? [runLoop, runManager] : [runManager, runLoop] { try run() }
        }

        func median<T: Comparable>(_ values: [T]) -> T { values.sorted()[values.count / 2] }
        func rate(_ seconds: TimeInterval) -> Double { Double(count * bodyLength) / 1e6 / seconds }
        let manager = (seconds: median(managerRounds.map(\.seconds)), growth: median(managerRounds.map(\.growth)))
        let loop = (seconds: median(loopRounds.map(\.seconds)), growth: median(loopRounds.map(\.growth)))
        let ratios = zip(managerRounds, loopRounds).map { $1.seconds / $0.seconds }
        let growthOverInFlight = Double(manager.growth) / Double(inFlight * bodyLength)
        print("bulk_in_memory_manager: \(Int(rate(manager.seconds))) MB/s, +\(mebibytes(manager.growth)) MiB")
        print("bulk_in_memory_curl_loop: \(Int(rate(loop.seconds))) MB/s, +\(mebibytes(loop.growth)) MiB")
        print(String(format: "bulk_in_memory_ratio: %.2f (manager / loop, median of rounds %.2f-%.2f; target >= %.1f)",
                     median(ratios), ratios.min()!, ratios.max()!, targetRatio))
        print("bulk_in_memory_round_ratios: \(ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")) (each round's manager / loop)")
        print(String(format: "bulk_in_memory_manager_growth_over_in_flight: %.2f (target <= %.1f)", growthOverInFlight, targetGrowthOverInFlight))
        print("bulk_in_memory_manager_failures: \(managerFailures) (of \(rounds * count))")
        print("bulk_in_memory_curl_loop_failures: \(loopFailures) (of \(rounds * count))")
        return managerFailures == 0 && loopFailures == 0
    }
}
