import AFNetworking
import AFNetworkingTesting
import Foundation

/// Requests per second and CPU time per request for a 1 KiB GET answered by the
/// `AFNetworkingTesting` product's `StubTransport` (no socket), against the same manager on the
/// libcurl transport fetching the same size from nginx, 8 in flight, five alternating rounds,
/// medians.
///
/// Usage: stub-requests <URL of a 1 KiB file> [requests per round, default 3000]
enum StubRequestsBenchmark {
    static func run(_ arguments: [String]) throws -> Bool {
        guard let urlString = arguments.first, let url = URL(string: urlString) else {
            print("usage: afn-benchmarks stub-requests <URL of a 1 KiB file> [requests per round]")
            return false
        }
        let requests = arguments.dropFirst().first.flatMap { Int($0) } ?? 3000
        let body = Data(repeating: 0x61, count: 1024)
        var stubRounds: [RequestOverheadBenchmark.Figures] = []
        var networkRounds: [RequestOverheadBenchmark.Figures] = []
        for _ in 0..<5 {
            stubRounds.append(try RequestOverheadBenchmark.measure(requests: requests, inFlight: 8) {
                let stubs = StubTransport()
                stubs.on("GET").reply(.status(200, fields: ["Content-Type": "application/octet-stream"], body: body))
                return ManagerClient(url: url, transport: stubs.transport)
            })
            networkRounds.append(try RequestOverheadBenchmark.measure(requests: requests, inFlight: 8) { ManagerClient(url: url) })
        }
        let stub = RequestOverheadBenchmark.Figures.median(stubRounds)
        let network = RequestOverheadBenchmark.Figures.median(networkRounds)
        print("stub_requests_8_in_flight: \(Int(stub.requestsPerSecond)) req/s, \(Int(stub.cpuMicroseconds)) us CPU/req, \(stub.failures) failed")
        print("stub_requests_baseline_libcurl_nginx_8_in_flight: \(Int(network.requestsPerSecond)) req/s, \(Int(network.cpuMicroseconds)) us CPU/req, \(network.failures) failed")
        print(String(format: "stub_requests_ratio: %.2f (stub transport / libcurl transport to nginx)", stub.requestsPerSecond / network.requestsPerSecond))
        let ok = stub.failures == 0 && network.failures == 0
        print("stub-requests: \(ok ? "PASS" : "FAIL")")
        return ok
    }
}
