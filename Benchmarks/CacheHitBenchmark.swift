import AFNetworking
import Foundation

/// CPU time per request of a 1 KiB GET answered by the manager's `ResponseCache`, from memory
/// and from its files on disk (nothing kept in memory), against the same GET from the network
/// (nginx on loopback), all through `HTTPSessionManager.get` with success and failure
/// handlers, 8 in flight, in seven alternating rounds of each, medians reported with each
/// round's ratio. The cached clients ask with `.returnCacheDataElseLoad`, so that every
/// request after its warm-up is a hit whatever the file's freshness.
/// Usage: cache-hit <URL of a 1 KiB file> [requests per round, default 3000]
enum CacheHitBenchmark {
    static func run(_ arguments: [String]) throws -> Bool {
        guard let urlString = arguments.first, let url = URL(string: urlString) else {
            print("usage: afn-benchmarks cache-hit <URL of a 1 KiB file> [requests per round]")
            return false
        }
        let requests = arguments.dropFirst().first.flatMap { Int($0) } ?? 3000
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("afn-cache-hit-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var networkRounds: [RequestOverheadBenchmark.Figures] = []
        var cachedRounds: [RequestOverheadBenchmark.Figures] = []
        var diskRounds: [RequestOverheadBenchmark.Figures] = []
        for round in 0..<7 {
            networkRounds.append(try RequestOverheadBenchmark.measure(requests: requests, inFlight: 8) { ManagerClient(url: url) })
            cachedRounds.append(try RequestOverheadBenchmark.measure(requests: requests, inFlight: 8) { ManagerClient(url: url, cache: ResponseCache()) })
            // A directory a round: the previous round's cache may still hold its own.
            let disk = try ResponseCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: scratch.appendingPathComponent("\(round)"))
            diskRounds.append(try RequestOverheadBenchmark.measure(requests: requests, inFlight: 8) { ManagerClient(url: url, cache: disk) })
        }
        let network = RequestOverheadBenchmark.Figures.median(networkRounds)
        print("cache_hit_network_8_in_flight: \(Int(network.requestsPerSecond)) req/s, \(Int(network.cpuMicroseconds)) us CPU/req")
        for (name, rounds) in [("cached", cachedRounds), ("disk", diskRounds)] {
            let cached = RequestOverheadBenchmark.Figures.median(rounds)
            print("cache_hit_\(name)_8_in_flight: \(Int(cached.requestsPerSecond)) req/s, \(Int(cached.cpuMicroseconds)) us CPU/req")
            let ratios = zip(rounds, networkRounds).map { $0.cpuMicroseconds / $1.cpuMicroseconds }
            print(String(format: "cache_hit_\(name)_cpu_ratio_8_in_flight: %.2f (CPU a request / network's, rounds %@)",
                         ratios.sorted()[ratios.count / 2], ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")))
        }
        let ok = (networkRounds + cachedRounds + diskRounds).allSatisfy { $0.failures == 0 }
        print("cache-hit: \(ok ? "PASS" : "FAIL")")
        return ok
    }
}
