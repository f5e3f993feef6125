import AFNetworking
import AFSerialization
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Requests per second and CPU time per request for a 1 KiB GET, at 1, 8 and 64 requests in
/// flight: `HTTPSessionManager` as an application gets it (on its default libcurl transport)
/// against the baseline, a plain URLSession with a delegate on a serial queue, measured in the
/// same run with the same configuration (no `URLCache`), in seven alternating rounds, the median
/// round of each reported (two cores shared with the server make single rounds noisy), and each
/// round's ratio beside it (the machine's speed drifts from round to round). A third
/// client, the manager on URLSession's own protocol (`transport: .urlSession`), shows what the
/// manager's layer costs on that transport; a fourth, libcurl's multi interface driven directly
/// (`CurlLoopClient`), is the limit of the libcurl transport, and the manager's CPU a request is
/// printed as a multiple of it.
/// Usage: request-overhead <URL of a 1 KiB file> [requests per round, default 3000]
enum RequestOverheadBenchmark {
    /// The targets: the manager's requests per second against URLSession's, by requests in flight.
    static let targetRatios = [1: 1.5, 8: 2.5, 64: 2.0]

    static func run(_ arguments: [String]) throws -> Bool {
        guard let urlString = arguments.first, let url = URL(string: urlString) else {
            print("usage: afn-benchmarks request-overhead <URL of a 1 KiB file> [requests per round]")
            return false
        }
        let requests = arguments.dropFirst().first.flatMap { Int($0) } ?? 3000
        var ok = true
        for inFlight in [1, 8, 64] {
            var baselineRounds: [Figures] = []
            var managerRounds: [Figures] = []
            var nativeRounds: [Figures] = []
            var loopRounds: [Figures] = []
            for _ in 0..<7 {
                baselineRounds.append(try measure(requests: requests, inFlight: inFlight) { try PlainSessionClient(url: url) })
                managerRounds.append(try measure(requests: requests, inFlight: inFlight) { ManagerClient(url: url) })
                nativeRounds.append(try measure(requests: requests, inFlight: inFlight) { ManagerClient(url: url, transport: .urlSession) })
                loopRounds.append(try measure(requests: requests, inFlight: inFlight) { try CurlLoopClient(url: url) })
            }
            let baseline = Figures.median(baselineRounds)
            let manager = Figures.median(managerRounds)
            let native = Figures.median(nativeRounds)
            let loop = Figures.median(loopRounds)
            let ratio = manager.requestsPerSecond / baseline.requestsPerSecond
            print("request_overhead_urlsession_\(inFlight)_in_flight: \(Int(baseline.requestsPerSecond)) req/s, \(Int(baseline.cpuMicroseconds)) us CPU/req")
            print("request_overhead_manager_\(inFlight)_in_flight: \(Int(manager.requestsPerSecond)) req/s, \(Int(manager.cpuMicroseconds)) us CPU/req")
            print(String(format: "request_overhead_ratio_\(inFlight)_in_flight: %.3f (manager / URLSession)", ratio))
            let roundRatios = zip(managerRounds, baselineRounds).map { String(format: "%.2f", $0.requestsPerSecond / $1.requestsPerSecond) }
            print("request_overhead_round_ratios_\(inFlight)_in_flight: \(roundRatios.joined(separator: ", ")) (each round's manager / URLSession)")
            print("request_overhead_manager_on_urlsession_transport_\(inFlight)_in_flight: \(Int(native.requestsPerSecond)) req/s, \(Int(native.cpuMicroseconds)) us CPU/req")
            print(String(format: "request_overhead_manager_on_urlsession_transport_ratio_\(inFlight)_in_flight: %.3f (manager with transport: .urlSession / URLSession)",
                         native.requestsPerSecond / baseline.requestsPerSecond))
            print("request_overhead_curl_loop_\(inFlight)_in_flight: \(Int(loop.requestsPerSecond)) req/s, \(Int(loop.cpuMicroseconds)) us CPU/req")
            let cpuOverLoop = zip(managerRounds, loopRounds).map { $0.cpuMicroseconds / $1.cpuMicroseconds }.sorted()
            print(String(format: "request_overhead_manager_cpu_over_curl_loop_\(inFlight)_in_flight: %.2f (manager's CPU a request / the libcurl loop's, median of rounds %.2f-%.2f)",
                         cpuOverLoop[cpuOverLoop.count / 2], cpuOverLoop.first!, cpuOverLoop.last!))
            if let target = targetRatios[inFlight] {
                print(String(format: "request_overhead_target_\(inFlight)_in_flight: %@ (ratio %.3f, target >= %.2f)",
                             ratio >= target ? "met" : "not met", ratio, target))
            }
            ok = ok && baseline.failures == 0 && manager.failures == 0 && native.failures == 0 && loop.failures == 0
        }
        print("request-overhead: \(ok ? "PASS" : "FAIL")")
        return ok
    }

    struct Figures {
        var requestsPerSecond: Double
        var cpuMicroseconds: Double
        var failures: Int

        /// The median of each figure; failures are summed.
        static func median(_ rounds: [Figures]) -> Figures {
            func middle(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            return Figures(requestsPerSecond: middle(rounds.map(\.requestsPerSecond)),
                           cpuMicroseconds: middle(rounds.map(\.cpuMicroseconds)), failures: rounds.reduce(0) { $0 + $1.failures })
        }
    }

    /// Sends `requests` GETs keeping `inFlight` outstanding, after a warm-up.
    static func measure(requests: Int, inFlight: Int, client make: () throws -> any BenchmarkClient) throws -> Figures {
        let client = try make()
        defer { client.close() }
        _ = drive(client, requests: min(300, requests), inFlight: inFlight)
        let cpuBefore = cpuSeconds()
        let start = Date()
        let failures = drive(client, requests: requests, inFlight: inFlight)
        let seconds = Date().timeIntervalSince(start)
        let cpu = cpuSeconds() - cpuBefore
        return Figures(requestsPerSecond: Double(requests) / seconds, cpuMicroseconds: cpu / Double(requests) * 1e6, failures: failures)
    }

    private static func drive(_ client: any BenchmarkClient, requests: Int, inFlight: Int) -> Int {
        fanOut(count: requests, inFlight: inFlight) { _, done in client.get(done) }
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

protocol BenchmarkClient: Sendable {
    func get(_ done: @escaping @Sendable (Bool) -> Void)
    func close()
}

func benchmarkConfiguration() -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.default
    configuration.urlCache = nil
    configuration.httpMaximumConnectionsPerHost = 64
    return configuration
}

/// The manager as an application uses it: `get` with success and failure handlers; with
/// `cache`, asking with `.returnCacheDataElseLoad`, so that every request after the first is
/// answered by the cache whatever the file's freshness; with `instrumentation`, as the manager's.
final class ManagerClient: BenchmarkClient {
    private let manager: HTTPSessionManager
    private let path: String

    init(url: URL, transport: HTTPTransport = .libcurl, cache: ResponseCache? = nil, instrumentation: (any TaskInstrumentation)? = nil) {
        manager = HTTPSessionManager(configuration: benchmarkConfiguration(), transport: transport)
        manager.responseSerializer = HTTPResponseSerializer()
        manager.instrumentation = instrumentation
        if let cache {
            manager.responseCache = cache
            manager.requestSerializer.cachePolicy = .returnCacheDataElseLoad
        }
        path = url.absoluteString
    }

    func get(_ done: @escaping @Sendable (Bool) -> Void) {
        manager.get(path, success: { _, object in done((object as? Data)?.count == 1024) }, failure: { _, _ in done(false) })
    }

    func close() { manager.invalidateSession(cancelingTasks: true) }
}

/// The baseline: URLSession with a delegate on a serial queue that collects each body.
final class PlainSessionClient: NSObject, BenchmarkClient, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `pending` is only touched under `lock`; the rest is immutable after init.
    private let url: URL
    private let lock = NSLock()
    private var pending: [Int: (data: Data, done: @Sendable (Bool) -> Void)] = [:]
    private var session: URLSession!

    init(url: URL, configuration: URLSessionConfiguration = benchmarkConfiguration()) throws {
        self.url = url
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    func get(_ done: @escaping @Sendable (Bool) -> Void) {
        lock.lock()
        let task = session.dataTask(with: url)
        pending[task.taskIdentifier] = (Data(), done)
        lock.unlock()
        task.resume()
    }

    func close() { session.invalidateAndCancel() }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        pending[dataTask.taskIdentifier]?.data.append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let entry = pending.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        let status = (task.response as? HTTPURLResponse)?.statusCode
        entry?.done(error == nil && status == 200 && entry?.data.count == 1024)
    }
}
