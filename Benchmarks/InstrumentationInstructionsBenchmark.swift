import AFNetworking
import Foundation
#if Logging
import AFNetworkingLogging
import Logging
#endif
#if Metrics
import AFNetworkingMetrics
import CoreMetrics
#endif
#if Tracing
import AFNetworkingTracing
import Tracing
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What the integrations cost a GET, in instructions counted by `valgrind --tool=callgrind`:
/// the manager's sequential 1 KiB GETs (`sequential-requests manager-<variant>`) with each
/// `InstrumentationVariant` this build has (the integrations compiled in by its traits, with
/// no-op backends) against `none`, the manager without instrumentation. Each variant runs in a
/// process of its own with `warmUp` and with `warmUp + requests` requests, the difference over
/// `requests` being one GET (as `request-instructions`), in `rounds` rounds, each round taking
/// the variants in turn from a different first one; the median round of each is printed, with
/// its ratio to `none`'s median. With `--baseline`, the `manager` client of another build of
/// `afn-benchmarks` (another commit's) runs as the variant `baseline` in the same rounds.
/// Usage: instrumentation-instructions <URL of a 1 KiB file> [requests, default 1000] [rounds,
/// default 3] [--baseline <afn-benchmarks of another build>]
enum InstrumentationInstructionsBenchmark {
    /// The most instructions a GET an integration may add with no-op backends, as a ratio to `none`.
    static let targetRatio = 1.05

    static func run(_ arguments: [String]) throws -> Bool {
        var positional = arguments
        var baseline: String?
        if let flag = positional.firstIndex(of: "--baseline") {
            guard flag + 1 < positional.count else { return usage() }
            baseline = positional[flag + 1]
            positional.removeSubrange(flag...(flag + 1))
        }
        guard let url = positional.first else { return usage() }
        let requests = positional.dropFirst().first.flatMap { Int($0) } ?? 1000
        let rounds = positional.dropFirst(2).first.flatMap { Int($0) } ?? 3
        guard let valgrind = executable(named: "valgrind") else {
            print("instrumentation-instructions: valgrind not found (Debian's valgrind)")
            return false
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("afn-instrumentation-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = try RequestInstructionsBenchmark.strippedCopy(in: directory)
        // Each variant: its name, the executable that runs it and its `sequential-requests` client.
        var variants = InstrumentationVariant.names.map { (name: $0, binary: binary, client: $0 == "none" ? "manager" : "manager-\($0)") }
        if let baseline {
            variants.append((name: "baseline", binary: try RequestInstructionsBenchmark.strippedCopy(of: baseline, named: "baseline", in: directory), client: "manager"))
        }
        var perRequest: [String: [Int]] = [:]
        for round in 0..<rounds {
            for offset in variants.indices {
                let variant = variants[(round + offset) % variants.count]
                let output = directory.appendingPathComponent("\(variant.name).out")
                let short = try RequestInstructionsBenchmark.instructions(
                    valgrind: valgrind, binary: variant.binary, client: variant.client, url: url, count: RequestInstructionsBenchmark.warmUp, output: output)
                let long = try RequestInstructionsBenchmark.instructions(
                    valgrind: valgrind, binary: variant.binary, client: variant.client, url: url,
                    count: RequestInstructionsBenchmark.warmUp + requests, output: output)
                perRequest[variant.name, default: []].append((long - short) / requests)
                print("instrumentation_instructions_round_\(round + 1)_\(variant.name): \((long - short) / requests) instructions")
            }
        }
        let medians = perRequest.mapValues { $0.sorted()[$0.count / 2] }
        guard let none = medians["none"] else { return false }
        for variant in variants {
            guard let median = medians[variant.name], let values = perRequest[variant.name] else { continue }
            print("instrumentation_instructions_per_request_\(variant.name): \(median) instructions (median of \(rounds) rounds, \(values.min()!)-\(values.max()!))")
            guard variant.name != "none" else { continue }
            let ratio = Double(median) / Double(none)
            switch variant.name {
            case "baseline":
                print(String(format: "instrumentation_instructions_ratio_none_vs_baseline: %.3f (target: no change)", Double(none) / Double(median)))
            case "logging-trace":
                // Every line built and handed to a handler: what logging costs when it is on, not its no-op cost.
                print(String(format: "instrumentation_instructions_ratio_%@_vs_none: %.3f", variant.name, ratio))
            default:
                print(String(format: "instrumentation_instructions_ratio_%@_vs_none: %.3f (target <= %.2f: %@)", variant.name, ratio, targetRatio,
                             ratio <= targetRatio ? "met" : "not met"))
            }
        }
        return true
    }

    private static func usage() -> Bool {
        print("usage: afn-benchmarks instrumentation-instructions <URL of a 1 KiB file> [requests] [rounds] [--baseline <afn-benchmarks>]")
        return false
    }
}

/// The instrumentations `InstrumentationInstructionsBenchmark` counts, each with no-op backends,
/// as far as this build's traits compile them in: `logging` (`LoggingInstrumentation` with its
/// default logger, which discards everything), `logging-trace` (a logger at `trace` whose
/// handler discards each line it is handed: every line built), `metrics`
/// (`MetricsInstrumentation` on swift-metrics' `NOOPMetricsHandler`), `tracing`
/// (`TracingInstrumentation` with a `NoOpTracer`), and `all` (logging, metrics and tracing in an
/// `InstrumentationList`) when all three are.
enum InstrumentationVariant {
    /// `none` (no instrumentation), then the variants this build has.
    static var names: [String] {
        var names = ["none"]
        #if Logging
        names += ["logging", "logging-trace"]
        #endif
        #if Metrics
        names.append("metrics")
        #endif
        #if Tracing
        names.append("tracing")
        #endif
        #if Logging && Metrics && Tracing
        names.append("all")
        #endif
        return names
    }

    /// The instrumentation of the variant `name`, other than `none`.
    static func instrumentation(named name: String) throws -> any TaskInstrumentation {
        switch name {
        #if Logging
        case "logging": return LoggingInstrumentation()
        case "logging-trace": return LoggingInstrumentation(logger: Logger(label: "afn-benchmarks", factory: { _ in DiscardingLogHandler() }))
        #endif
        #if Metrics
        case "metrics": return MetricsInstrumentation(factory: NOOPMetricsHandler.instance)
        #endif
        #if Tracing
        case "tracing": return TracingInstrumentation(tracer: NoOpTracer())
        #endif
        #if Logging && Metrics && Tracing
        case "all":
            return InstrumentationList([LoggingInstrumentation(), MetricsInstrumentation(factory: NOOPMetricsHandler.instance), TracingInstrumentation(tracer: NoOpTracer())])
        #endif
        default: throw BenchmarkError.failed("no instrumentation \(name) in this build (variants: \(names.joined(separator: ", ")))")
        }
    }
}

#if Logging
/// A handler at `trace` that is handed every line and keeps none: the cost of building the lines
/// without any output's.
struct DiscardingLogHandler: LogHandler {
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {}
}
#endif
