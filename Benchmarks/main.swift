import Foundation

// Benchmarks print `name: value unit` lines, each with a baseline measured in the same run.
// Run in release mode: `swift run -c release afn-benchmarks <benchmark>`.

let benchmarks: [String: ([String]) throws -> Bool] = [
    "multipart-memory": { _ in try MultipartMemoryBenchmark.run() },
    "gzip-bomb-memory": GzipBombMemoryBenchmark.run,
    "soak": SoakBenchmark.run,
    "slow-consumer-memory": SlowConsumerMemoryBenchmark.run,
    "request-overhead": RequestOverheadBenchmark.run,
    "cache-hit": CacheHitBenchmark.run,
    "request-instructions": RequestInstructionsBenchmark.run,
    "instrumentation-instructions": InstrumentationInstructionsBenchmark.run,
    "sequential-requests": SequentialRequests.run,
    "serializer-throughput": SerializerThroughputBenchmark.run,
    "stub-requests": StubRequestsBenchmark.run,
    "streaming": StreamingBenchmark.run,
    "transfer": TransferBenchmark.run,
    "bulk-in-memory": BulkInMemoryBenchmark.run,
    "downloads-vs-curl": TransferBenchmark.runAgainstCurl,
]

let arguments = CommandLine.arguments.dropFirst()
guard let name = arguments.first, let benchmark = benchmarks[name] else {
    print("usage: afn-benchmarks <\(benchmarks.keys.sorted().joined(separator: "|"))>")
    exit(2)
}
do {
    exit(try benchmark(Array(arguments.dropFirst())) ? 0 : 1)
} catch {
    print("\(name): failed: \(error)")
    exit(2)
}
