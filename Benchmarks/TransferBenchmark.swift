import AFNetworking
import AFLocking
import AFSerialization
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Throughput and peak memory of large transfers from the local bulk server
/// (`scripts/bulk_server.py`, unthrottled): eight 10 MB downloads at a time (80 in all), the
/// same 80 bodies kept in memory (data tasks), one
/// 1 GiB download and one 1 GiB upload from a file, each through `URLSessionManager` and,
/// as the baseline in the same run, through URLSession's own download and upload-from-file
/// tasks; eight 100 MB downloads to files at once against the `curl` tool writing the same
/// files (libcurl alone). Then `afn` itself uploads and downloads 1 GiB, its peak RSS polled
/// from the child. Usage: transfer <bulk server base URL> <path of the afn executable>
enum TransferBenchmark {
    static let gibibyte = 1 << 30

    static func run(_ arguments: [String]) throws -> Bool {
        guard arguments.count == 2, let base = URL(string: arguments[0]) else {
            print("usage: afn-benchmarks transfer <bulk server base URL> <afn executable>")
            return false
        }
        return try inScratchDirectory { try run(base: base, afn: URL(fileURLWithPath: arguments[1]), directory: $0) }
    }

    /// The comparison with `curl` alone. Usage: downloads-vs-curl <bulk server base URL>
    static func runAgainstCurl(_ arguments: [String]) throws -> Bool {
        guard arguments.count == 1, let base = URL(string: arguments[0]) else {
            print("usage: afn-benchmarks downloads-vs-curl <bulk server base URL>")
            return false
        }
        return try inScratchDirectory { directory in
            try compareWithCurl(base.appendingPathComponent("bytes/\(100_000_000)"), count: 8, into: directory)
            return true
        }
    }

    /// Runs `body` with a new directory for its files, removed after.
    private static func inScratchDirectory(_ body: (URL) throws -> Bool) throws -> Bool {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("afn-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    private static func run(base: URL, afn: URL, directory: URL) throws -> Bool {
        let large = directory.appendingPathComponent("upload.bin")
        guard FileManager.default.createFile(atPath: large.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let handle = try FileHandle(forWritingTo: large)
        try handle.truncate(atOffset: UInt64(gibibyte))
        try handle.close()

        let small = base.appendingPathComponent("bytes/\(10_000_000)")
        report("download_10mb_x80_8_in_flight", bytes: 80 * 10_000_000,
               baseline: try measure { try NativeTransfers.downloads(small, count: 80, inFlight: 8, into: directory) },
               manager: try measure { try ManagedTransfers.downloads(small, count: 80, inFlight: 8, into: directory) })
        report("get_10mb_x80_8_in_flight_in_memory", bytes: 80 * 10_000_000,
               baseline: try measure { try NativeTransfers.gets(small, count: 80, inFlight: 8) },
               manager: try measure { try ManagedTransfers.gets(small, count: 80, inFlight: 8) })
        try compareWithCurl(base.appendingPathComponent("bytes/\(100_000_000)"), count: 8, into: directory)
        let big = base.appendingPathComponent("bytes/\(gibibyte)")
        report("download_1gib", bytes: gibibyte,
               baseline: try measure { try NativeTransfers.downloads(big, count: 1, inFlight: 1, into: directory) },
               manager: try measure { try ManagedTransfers.downloads(big, count: 1, inFlight: 1, into: directory) })
        let sink = base.appendingPathComponent("upload")
        report("upload_1gib_from_file", bytes: gibibyte,
               baseline: try measure { try NativeTransfers.upload(large, to: sink) },
               manager: try measure { try ManagedTransfers.upload(large, to: sink) })

        let uploadPeak = try childPeak(afn, ["upload", sink.absoluteString, "--file", large.path])
        let downloadPeak = try childPeak(afn, ["download", big.absoluteString, "--output", directory.appendingPathComponent("afn.bin").path])
        for (name, peak) in [("upload", uploadPeak), ("download", downloadPeak)] {
            print("afn_\(name)_1gib_peak_resident: \(mebibytes(peak)) MiB (target 64 MiB: \(peak < 64 << 20 ? "met" : "not met"))")
        }
        return true
    }

    struct Measurement {
        let seconds: TimeInterval
        let growth: UInt64
    }

    /// Runs `body` after the dirty pages of earlier runs are written back (`sync`), so that no
    /// run pays for the disk writes of the one before it.
    static func measure(_ body: () throws -> Void) throws -> Measurement {
        sync()
        ResourceUsage.resetPeak()
        let before = ResourceUsage.residentBytes
        let start = Date()
        try body()
        let peak = ResourceUsage.peakResidentBytes
        return Measurement(seconds: Date().timeIntervalSince(start), growth: peak > before ? peak - before : 0)
    }

    private static func report(_ name: String, bytes: Int, baseline: Measurement, manager: Measurement) {
        func rate(_ measurement: Measurement) -> Int { Int(Double(bytes) / 1_048_576 / measurement.seconds) }
        print("\(name)_urlsession: \(rate(baseline)) MiB/s, peak growth \(mebibytes(baseline.growth)) MiB")
        print("\(name)_manager: \(rate(manager)) MiB/s, peak growth \(mebibytes(manager.growth)) MiB")
        print(String(format: "\(name)_throughput_ratio: %.2f (manager / URLSession)", baseline.seconds / manager.seconds))
    }

    /// `count` downloads of 100 MB `url` to files, all at once, through the manager and through
    /// the `curl` tool (`--parallel`), in five rounds, each client first in turn; the median of
    /// each. Dirty pages are written back before each run (`sync`), so that neither pays for the
    /// other's writes.
    private static func compareWithCurl(_ url: URL, count: Int, into directory: URL) throws {
        guard let curl = executable(named: "curl") else {
            print("download_100mb_x\(count)_vs_curl: curl not found")
            return
        }
        var curlRounds: [TimeInterval] = []
        var managerRounds: [TimeInterval] = []
        let runCurl = { curlRounds.append(try measure { try curlDownloads(curl, url, count: count, into: directory) }.seconds) }
        let runManager = {
            managerRounds.append(try measure { try ManagedTransfers.downloads(url, count: count, inFlight: count, into: directory) }.seconds)
        }
        for round in 0..<5 {
            for run in round.isMultiple(of: 2) ? [runCurl, runManager] : [runManager, runCurl] {
                sync()
                try run()
            }
        }
        let median = { (rounds: [TimeInterval]) in rounds.sorted()[rounds.count / 2] }
        let rate = { (seconds: TimeInterval) in Int(Double(count * 100_000_000) / 1_048_576 / seconds) }
        let name = "download_100mb_x\(count)_to_files"
        let each = { (rounds: [TimeInterval]) in rounds.map { String(rate($0)) }.joined(separator: ", ") }
        print("\(name)_curl: \(rate(median(curlRounds))) MiB/s (rounds: \(each(curlRounds)))")
        print("\(name)_manager: \(rate(median(managerRounds))) MiB/s (rounds: \(each(managerRounds)))")
        print(String(format: "\(name)_ratio_to_curl: %.2f (manager / curl, target >= 0.9)", median(curlRounds) / median(managerRounds)))
    }

    /// The `curl` tool downloading `url` to `count` files at once; the files are removed after.
    private static func curlDownloads(_ curl: String, _ url: URL, count: Int, into directory: URL) throws {
        let files = (0..<count).map { directory.appendingPathComponent("curl-\($0)").path }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl)
        process.standardError = FileHandle.nullDevice
        process.arguments = ["--silent", "--no-progress-meter", "--fail", "--parallel", "--parallel-max", String(count)]
            + files.flatMap { ["--output", $0, url.absoluteString] }
        try process.run()
        process.waitUntilExit()
        let sizes = files.map(FileSize.ofRegularFile(atPath:))
        files.forEach { try? FileManager.default.removeItem(atPath: $0) }
        guard process.terminationStatus == 0 else { throw BenchmarkError.failed("curl exited with \(process.terminationStatus)") }
        guard sizes.allSatisfy({ $0 == bodySize(of: url) }) else { throw BenchmarkError.failed("curl wrote \(sizes)") }
    }

    /// Runs `executable` and returns its peak RSS, polled from its own `VmHWM` every 10 ms
    /// (`ru_maxrss` would not do: a child started with `vfork` inherits the parent's peak).
    private static func childPeak(_ executable: URL, _ arguments: [String]) throws -> UInt64 {
        var pid: pid_t = 0
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawn(&pid, executable.path, &actions, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
        var peak: UInt64 = 0
        var status: Int32 = 0
        while true {
            peak = max(peak, ResourceUsage.peakResidentBytes(of: pid))
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            guard waited == 0 else { throw CocoaError(.executableRuntimeMismatch) }
            usleep(10_000)
        }
        guard status == 0 else { throw CocoaError(.executableRuntimeMismatch) }
        return peak
    }
}

/// The baseline: URLSession's own download and upload-from-file tasks.
enum NativeTransfers {
    static func downloads(_ url: URL, count: Int, inFlight: Int, into directory: URL) throws {
        let session = URLSession(configuration: benchmarkConfiguration())
        defer { session.finishTasksAndInvalidate() }
        let failures = fanOut(count: count, inFlight: inFlight) { index, done in
            session.downloadTask(with: url) { location, _, error in
                var size: UInt64?
                if let location {
                    // URLSession on Linux never deletes its download files: move, then remove.
                    let destination = directory.appendingPathComponent("native-\(index)")
                    try? FileManager.default.moveItem(at: location, to: destination)
                    size = FileSize.ofRegularFile(atPath: destination.path)
                    try? FileManager.default.removeItem(at: destination)
                }
                done(error == nil && size == bodySize(of: url))
            }.resume()
        }
        if failures > 0 { throw URLError(.unknown) }
    }

    /// `count` GETs of `url` with the bodies kept in memory, `inFlight` at a time.
    static func gets(_ url: URL, count: Int, inFlight: Int) throws {
        let session = URLSession(configuration: benchmarkConfiguration())
        defer { session.finishTasksAndInvalidate() }
        let failures = fanOut(count: count, inFlight: inFlight) { _, done in
            session.dataTask(with: url) { data, _, error in done(error == nil && data?.count == 10_000_000) }.resume()
        }
        if failures > 0 { throw URLError(.unknown) }
    }

    static func upload(_ file: URL, to url: URL) throws {
        let session = URLSession(configuration: benchmarkConfiguration())
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let done = DispatchSemaphore(value: 0)
        let failed = Locked(false)
        session.uploadTask(with: request, fromFile: file) { _, response, error in
            failed.withLock { $0 = error != nil || (response as? HTTPURLResponse)?.statusCode != 200 }
            done.signal()
        }.resume()
        done.wait()
        if failed.withLock({ $0 }) { throw URLError(.unknown) }
    }
}

/// The same transfers through `URLSessionManager`.
enum ManagedTransfers {
    static func downloads(_ url: URL, count: Int, inFlight: Int, into directory: URL) throws {
        let manager = URLSessionManager(configuration: benchmarkConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        let failures = try fanOut(count: count, inFlight: inFlight) { index, done in
            let destination = directory.appendingPathComponent("managed-\(index)")
            manager.resume(try manager.downloadTask(
                with: URLRequest(url: url), destination: { _, _ in destination }, options: .replaceExistingFile,
                completionHandler: { _, _, error in
                    let size = FileSize.ofRegularFile(atPath: destination.path)
                    try? FileManager.default.removeItem(at: destination)
                    done(error == nil && size == bodySize(of: url))
                }))
        }
        if failures > 0 { throw URLError(.unknown) }
    }

    /// `count` GETs of `url` with the bodies kept in memory, `inFlight` at a time.
    static func gets(_ url: URL, count: Int, inFlight: Int) throws {
        if try failedGets(url, count: count, inFlight: inFlight) > 0 { throw URLError(.unknown) }
    }

    /// `gets`, returning how many failed or had a body of another length than 10,000,000 bytes.
    static func failedGets(_ url: URL, count: Int, inFlight: Int) throws -> Int {
        let manager = URLSessionManager(configuration: benchmarkConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        return try fanOut(count: count, inFlight: inFlight) { _, done in
            manager.resume(try manager.dataTask(with: URLRequest(url: url)) { _, object, error in
                done(error == nil && (object as? Data)?.count == 10_000_000)
            })
        }
    }

    static func upload(_ file: URL, to url: URL) throws {
        let manager = URLSessionManager(configuration: benchmarkConfiguration())
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        manager.resume(try manager.uploadTask(with: request, fromFile: file, completionHandler: { _, _, error in
            failure.withLock { $0 = error }
            done.signal()
        }))
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// The size of the body the bulk server sends for `url` (`/bytes/<n>`).
func bodySize(of url: URL) -> UInt64? { UInt64(url.lastPathComponent) }

/// Starts `count` operations with at most `inFlight` running; each calls `done` with its success
/// exactly once. Returns how many failed.
@discardableResult
func fanOut(count: Int, inFlight: Int, _ start: (Int, @escaping @Sendable (Bool) -> Void) throws -> Void) rethrows -> Int {
    let slots = DispatchSemaphore(value: inFlight)
    let group = DispatchGroup()
    let failures = Counter()
    for index in 0..<count {
        slots.wait()
        group.enter()
        try start(index) { succeeded in
            if !succeeded { failures.increment() }
            slots.signal()
            group.leave()
        }
    }
    group.wait()
    return failures.value
}
