import AFLocking
import AFNetworking
import Foundation

/// Many mixed requests through one manager, 64 in flight: GETs, POSTs, streamed uploads,
/// downloads to files, cancellations and failures from the fault server. Prints resident memory
/// and open descriptors at every tenth of the run; from the first tenth to the end they must
/// stay flat: memory growth under the limit, 8 MiB by default; descriptors, counted once the
/// closes the last requests left have settled, the median of the last three tenths at most 8
/// over that of the first three. The pool's size moves from tenth to tenth as failures and
/// cancellations close connections (24-38 descriptors, measured before and after the manager's
/// own tasks), while a leak of one descriptor in 500 requests would add 12. Every task must
/// complete once, with the outcome its kind expects. Baseline: the figures at the first tenth,
/// same run. Usage: `afn-benchmarks soak <bulk server URL> <fault server URL> [requests, default
/// 100000] [memory growth limit MiB, default 8]`.
enum SoakBenchmark {
    private static let inFlight = 64

    static func run(_ arguments: [String]) throws -> Bool {
        guard arguments.count >= 2, let bulk = URL(string: arguments[0]), let fault = URL(string: arguments[1]) else {
            print("usage: afn-benchmarks soak <bulk server URL> <fault server URL> [requests]")
            return false
        }
        let total = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
        let memoryLimit = Int64(arguments.count > 3 ? Int(arguments[3]) ?? 8 : 8) << 20
        let checkpoint = max(total / 10, 1)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("afn-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let manager = URLSessionManager()
        manager.responseSerializer = HTTPResponseSerializer()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let unexpected = Locked<[String]>([])
        var samples: [(requests: Int, resident: UInt64, descriptors: Int)] = []
        let began = Date()
        for round in 0..<(total / checkpoint) {
            let failures = try fanOut(count: checkpoint, inFlight: inFlight) { index, done in
                try start(kind: (round * checkpoint + index) % 6, bulk: bulk, fault: fault, directory: directory, manager: manager) { outcome in
                    if let outcome { unexpected.withLock { $0.append(outcome) } }
                    done(outcome == nil)
                }
            }
            let sample = ((round + 1) * checkpoint, ResourceUsage.residentBytes, settledDescriptors())
            samples.append(sample)
            print("soak_after_\(sample.0)_requests: \(mebibytes(sample.1)) MiB resident, \(sample.2) descriptors, \(failures) unexpected")
        }
        let seconds = Date().timeIntervalSince(began)
        let first = samples[0]
        let last = samples[samples.count - 1]
        let memoryGrowth = Int64(last.resident) - Int64(first.resident)
        let median = { (tenths: ArraySlice<(requests: Int, resident: UInt64, descriptors: Int)>) in
            tenths.map(\.descriptors).sorted()[tenths.count / 2]
        }
        let descriptorGrowth = median(samples.suffix(3)) - median(samples.prefix(3))
        print(String(format: "soak_rate: %.0f requests/s (%d requests, %.1f s)", Double(total) / seconds, total, seconds))
        print("baseline_after_first_tenth: \(mebibytes(first.resident)) MiB resident, \(first.descriptors) descriptors")
        print("soak_growth_after_first_tenth: \(String(format: "%.1f", Double(memoryGrowth) / 1_048_576)) MiB, \(descriptorGrowth) descriptors (medians of the first and last three tenths; limits \(memoryLimit >> 20) MiB, 8)")
        let problems = unexpected.withLock { $0 }
        for problem in problems.prefix(5) { print("soak_unexpected: \(problem)") }
        let ok = problems.isEmpty && memoryGrowth < memoryLimit && descriptorGrowth <= 8 && manager.tasks.isEmpty
        print("soak: \(ok ? "PASS" : "FAIL")")
        return ok
    }

    /// Starts request `kind` (0 GET, 1 POST, 2 streamed upload, 3 download, 4 cancelled, 5 a
    /// failure) and hands `done` nil when its outcome is the expected one, or what went wrong.
    private static func start(
        kind: Int, bulk: URL, fault: URL, directory: URL, manager: URLSessionManager, done: @escaping @Sendable (String?) -> Void
    ) throws {
        let expectSuccess: URLSessionManager.CompletionHandler = { response, _, error in
            done(error == nil && (response as? HTTPURLResponse)?.statusCode == 200 ? nil : "kind \(kind): \(String(describing: error))")
        }
        switch kind {
        case 0:
            manager.resume(try manager.dataTask(with: URLRequest(url: bulk.appendingPathComponent("bytes/1024")), completionHandler: expectSuccess))
        case 1, 2:
            var request = URLRequest(url: bulk.appendingPathComponent("post"))
            request.httpMethod = "POST"
            let body = Data(repeating: 0x61, count: 4096)
            if kind == 1 {
                manager.resume(try manager.uploadTask(with: request, from: body, completionHandler: expectSuccess))
            } else {
                request.httpBodyStream = InputStream(data: body)
                manager.resume(try manager.uploadTask(withStreamedRequest: request, completionHandler: expectSuccess))
            }
        case 3:
            let destination = directory.appendingPathComponent(UUID().uuidString)
            manager.resume(try manager.downloadTask(
                with: URLRequest(url: bulk.appendingPathComponent("bytes/16384")), destination: { _, _ in destination }
            ) { response, _, error in
                let size = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber)?.intValue
                try? FileManager.default.removeItem(at: destination)
                done(error == nil && size == 16384 ? nil : "download: \(String(describing: error)), \(String(describing: size)) bytes")
            })
        case 4:
            let task = try manager.dataTask(with: URLRequest(url: fault.appendingPathComponent("stall/2000"))) { _, _, error in
                done((error as? URLError)?.code == .cancelled ? nil : "cancel: \(String(describing: error))")
            }
            manager.resume(task)
            task.cancel()
        default:
            manager.resume(try manager.dataTask(with: URLRequest(url: fault.appendingPathComponent("short-body/1000"))) { _, _, error in
                done((error as? URLError)?.code == .networkConnectionLost ? nil : "failure: \(String(describing: error))")
            })
        }
    }

    /// The open descriptors once two counts 50 ms apart agree (at most a second): sockets and
    /// their watches are closed on the transport's queue after the requests that used them
    /// completed.
    private static func settledDescriptors() -> Int {
        let count = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }
        var last = count()
        for _ in 0..<20 {
            usleep(50_000)
            let next = count()
            if next == last { break }
            last = next
        }
        return last
    }
}
