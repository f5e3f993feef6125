import AFNetworking
import Foundation

/// CPU time per request of a 1 KiB GET answered by the manager's `ResponseCache` against the
/// same GET from the network (nginx on loopback), both through `HTTPSessionManager.get` with
/// success and failure handlers, 8 in flight, in seven alternating rounds of each, medians
/// reported with each round's ratio. The cached client asks with `.returnCacheDataElseLoad`,
/// so that every request after its warm-up is a hit whatever the file's freshness.
/// Usage: cache-hit <URL of a 1 KiB file> [requests per round, default 3000]
enum CacheHitBenchmark {
    static func run(_ arguments: [String]) throws -> Bool {
        guard let urlString = arguments.first, let url = URL(string: urlString) else {
            print("usage: afn-benchmarks cache-hit <URL of a 1 KiB file> [requests per round]")
            return false
        }
        let requests = arguments.dropFirst().first.flatMap { Int($0) } ?? 3000
        var networkRounds: [RequestOverheadBenchmark.Figures] = []
        var cachedRounds: [RequestOverheadBenchmark.Figures] = []
        for _ in 0..<7 {
            networkRounds.append(try RequestOverheadBenchmark.measure(requests: requests, inFlight: 8) { ManagerClient(url: url) })
            cachedRounds.append(try RequestOverheadBenchmark.measure(requests: requests, inFlight: 8) { ManagerClient(url: url, cache: ResponseCache()) })
        }
        let network = RequestOverheadBenchmark.Figures.median(networkRounds)
        let cached = RequestOverheadBenchmark.Figures.median(cachedRounds)
        print("cache_hit_network_8_in_flight: \(Int(network.requestsPerSecond)) req/s, \(Int(network.cpuMicroseconds)) us CPU/req")
        print("cache_hit_cached_8_in_flight: \(Int(cached.requestsPerSecond)) req/s, \(Int(cached.cpuMicroseconds)) us CPU/req")
        let ratios = zip(cachedRounds, networkRounds).map { $0.cpuMicroseconds / $1.cpuMicroseconds }
        print(String(format: "cache_hit_cpu_ratio_8_in_flight: %.2f (cached CPU a request / network's, rounds %@)",
                     ratios.sorted()[ratios.count / 2], ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")))
        let ok = network.failures == 0 && cached.failures == 0
        print("cache-hit: \(ok ? "PASS" : "FAIL")")
        return ok
    }
}
