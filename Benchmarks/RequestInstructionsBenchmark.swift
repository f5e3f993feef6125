import AFNetworking
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Instructions per request, counted by `valgrind --tool=callgrind` (counts repeat on a noisy
/// machine, seconds do not): sequential 1 KiB GETs for raw URLSession with a delegate, the
/// manager, and the ceiling client (URLSession with a `URLProtocol` answering a canned 1 KiB
/// response from memory: URLSession's own task layer, no network), and libcurl's multi interface
/// driven directly (`CurlLoopClient`, the limit of the libcurl transport). Each client runs twice in a
/// process of its own under callgrind, with `warmUp` and with `warmUp + requests` requests; the
/// difference of the totals over `requests` is the cost of one request, start-up and warm-up
/// cancelled out. The manager's profile's top entries are printed as the map of where it goes.
/// Usage: request-instructions <URL of a 1 KiB file> [requests, default 1000]
enum RequestInstructionsBenchmark {
    static let warmUp = 200
    static let clients = ["urlsession", "manager", "ceiling", "curl-loop"]

    static func run(_ arguments: [String]) throws -> Bool {
        guard let url = arguments.first else {
            print("usage: afn-benchmarks request-instructions <URL of a 1 KiB file> [requests]")
            return false
        }
        let requests = arguments.dropFirst().first.flatMap { Int($0) } ?? 1000
        guard let valgrind = executable(named: "valgrind") else {
            print("request-instructions: valgrind not found (Debian's valgrind)")
            return false
        }
        var perRequest: [String: Int] = [:]
        var managerLibraries: [String: Int] = [:]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("afn-callgrind-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = try strippedCopy(in: directory)
        for client in clients {
            let shortOutput = directory.appendingPathComponent("\(client)-short.out")
            let short = try instructions(valgrind: valgrind, binary: binary, client: client, url: url, count: warmUp, output: shortOutput)
            let longOutput = directory.appendingPathComponent("\(client)-long.out")
            let long = try instructions(valgrind: valgrind, binary: binary, client: client, url: url, count: warmUp + requests, output: longOutput)
            perRequest[client] = (long - short) / requests
            print("instructions_per_request_\(client): \(perRequest[client]!)")
            if client == "manager", let longProfile = try annotated(longOutput), let shortProfile = try annotated(shortOutput) {
                printTopEntries(of: longProfile)
                let shortLibraries = instructionsByLibrary(in: shortProfile)
                managerLibraries = instructionsByLibrary(in: longProfile).mapValues { $0 / requests }
                    .merging(shortLibraries.mapValues { -$0 / requests }, uniquingKeysWith: +)
                print("instructions_per_request_manager_by_library (their own instructions):")
                for (library, count) in managerLibraries.sorted(by: { $0.value > $1.value }).prefix(8) { print("  \(library): \(count)") }
            }
        }
        guard let manager = perRequest["manager"], let urlSession = perRequest["urlsession"], let ceiling = perRequest["ceiling"] else { return false }
        print(String(format: "instructions_ratio_manager_vs_urlsession: %.3f (target <= 0.5)", Double(manager) / Double(urlSession)))
        print(String(format: "instructions_ratio_manager_vs_ceiling: %.3f (target <= 1.3)", Double(manager) / Double(ceiling)))
        if let loop = perRequest["curl-loop"] {
            print(String(format: "instructions_ratio_manager_vs_curl_loop: %.2f (the manager's instructions a GET / the libcurl loop's)", Double(manager) / Double(loop)))
        }
        // The ceiling client plus libcurl's own code is a floor for any transport on libcurl under
        // URLSession, before a response is parsed or anything of the manager runs.
        if let libcurl = managerLibraries.first(where: { $0.key.hasPrefix("libcurl.so") })?.value {
            print(String(format: "instructions_floor_ceiling_plus_libcurl: %d (%.2f of the ceiling)", ceiling + libcurl, Double(ceiling + libcurl) / Double(ceiling)))
        }
        return true
    }

    /// `callgrind_annotate`'s listing of the profile at `output` (functions by their own
    /// instructions, each with its object file), or `nil` without the tool.
    static func annotated(_ output: URL) throws -> String? {
        guard let annotate = executable(named: "callgrind_annotate") else { return nil }
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: annotate)
        process.arguments = ["--threshold=100", output.path]
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// The function lines of an annotated profile: `  1,234 (0.5%)  file:function [object]`.
    private static func entries(of profile: String) -> [Substring] {
        profile.split(separator: "\n").filter { $0.contains(" (") && $0.first(where: { !$0.isWhitespace })?.isNumber == true }
    }

    /// Instructions of the functions of each object file (the last path component), summed.
    private static func instructionsByLibrary(in profile: String) -> [String: Int] {
        var libraries: [String: Int] = [:]
        for entry in entries(of: profile) {
            guard let count = Int(entry.drop(while: \.isWhitespace).prefix(while: { $0 != " " }).filter(\.isNumber)),
                  let open = entry.lastIndex(of: "["), entry.last == "]" else { continue }
            let library = entry[entry.index(after: open)..<entry.index(before: entry.endIndex)].split(separator: "/").last.map(String.init) ?? "?"
            libraries[library, default: 0] += count
        }
        return libraries
    }

    /// A copy of `source` (default this executable) named `name` in `directory`, without its
    /// debug information: valgrind 3.19 cannot read the DWARF swiftc writes ("Possibly corrupted
    /// debuginfo file ... Giving up"). Symbols stay.
    static func strippedCopy(of source: String = CommandLine.arguments[0], named name: String = "afn-benchmarks", in directory: URL) throws -> String {
        let copy = directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: executable(named: "strip") ?? "/usr/bin/strip")
        strip.arguments = ["--strip-debug", copy]
        try strip.run()
        strip.waitUntilExit()
        guard strip.terminationStatus == 0 else { throw BenchmarkError.failed("strip --strip-debug failed") }
        return copy
    }

    /// The total instructions of one process running `count` sequential requests of `client`.
    static func instructions(valgrind: String, binary: String, client: String, url: String, count: Int, output: URL) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: valgrind)
        process.arguments = ["--tool=callgrind", "--callgrind-out-file=\(output.path)", binary,
                             "sequential-requests", client, url, String(count)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = try String(contentsOf: output, encoding: .utf8)
        guard process.terminationStatus == 0,
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("summary:") || $0.hasPrefix("totals:") }),
              let total = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw BenchmarkError.failed("callgrind run of \(client) (\(count) requests) failed with status \(process.terminationStatus)")
        }
        return total
    }

    /// The 15 functions with the most instructions of their own in `profile`.
    private static func printTopEntries(of profile: String) {
        print("manager_profile_top_entries (instructions, own; whole process of \(warmUp) + requests):")
        for entry in entries(of: profile).prefix(15) { print("  \(demangled(entry.trimmingCharacters(in: .whitespaces)))") }
    }

    /// `text` with Swift symbols demangled by swift-demangle, when it is on the PATH.
    private static func demangled(_ text: String) -> String {
        guard let demangler = executable(named: "swift-demangle") else { return text }
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: demangler)
        process.arguments = ["--simplified"]
        process.standardInput = input
        process.standardOutput = output
        guard (try? process.run()) != nil else { return text }
        input.fileHandleForWriting.write(Data(text.utf8))
        try? input.fileHandleForWriting.close()
        let result = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return result.trimmingCharacters(in: .newlines)
    }

}

/// The path of the executable `name` on `PATH`, if any.
func executable(named name: String) -> String? {
    (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// `count` sequential GETs of `url` with one client, for `RequestInstructionsBenchmark` to count
/// under callgrind; `manager-<variant>` is the manager with one of the instrumentations
/// `InstrumentationInstructionsBenchmark` counts (`manager-logging`, ...). Usage:
/// sequential-requests urlsession|manager|manager-<variant>|ceiling|curl-loop <URL> <count> [in flight]
enum SequentialRequests {
    static func run(_ arguments: [String]) throws -> Bool {
        guard arguments.count >= 3, let url = URL(string: arguments[1]), let count = Int(arguments[2]) else {
            print("usage: afn-benchmarks sequential-requests urlsession|manager|manager-<variant>|ceiling|curl-loop <URL> <count> [in flight, default 1]")
            return false
        }
        let client: any BenchmarkClient = switch arguments[0] {
        case "urlsession": try PlainSessionClient(url: url)
        case "manager": ManagerClient(url: url)
        case "ceiling": try PlainSessionClient(url: url, configuration: CannedResponseProtocol.configuration())
        case "curl-loop": try CurlLoopClient(url: url)
        case let name where name.hasPrefix("manager-"):
            ManagerClient(url: url, instrumentation: try InstrumentationVariant.instrumentation(named: String(name.dropFirst("manager-".count))))
        default: throw BenchmarkError.failed("unknown client \(arguments[0])")
        }
        defer { client.close() }
        let inFlight = arguments.dropFirst(3).first.flatMap { Int($0) } ?? 1
        return fanOut(count: count, inFlight: inFlight) { _, done in client.get(done) } == 0
    }
}

/// Answers every request with 200 and the same 1 KiB body from memory: what URLSession's task
/// layer costs without a network.
final class CannedResponseProtocol: URLProtocol {
    private static let body = Data(repeating: 0x61, count: 1024)

    static func configuration() -> URLSessionConfiguration {
        let configuration = benchmarkConfiguration()
        configuration.protocolClasses = [CannedResponseProtocol.self]
        return configuration
    }

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
              let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "1024"]) else { return }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Self.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

/// A benchmark that could not run as asked.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String

    static func failed(_ reason: String) -> BenchmarkError { BenchmarkError(description: reason) }
}
