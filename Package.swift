// swift-tools-version:6.1
import Foundation
import PackageDescription

// The server-side integrations, each behind a trait that no default enables: a consumer using
// the default traits fetches, resolves and builds none of their packages
// (scripts/trait-check.sh). Every dependency of theirs, a test's too, names its trait.
let logging: TargetDependencyCondition? = .when(traits: ["Logging"])
let metrics: TargetDependencyCondition? = .when(traits: ["Metrics"])
let tracing: TargetDependencyCondition? = .when(traits: ["Tracing"])
let openAPI: TargetDependencyCondition? = .when(traits: ["OpenAPI"])

let package = Package(
    name: "AFNetworking",
    products: [
        .library(name: "AFNetworking", targets: ["AFNetworking"]),
        .library(name: "AFNetworkingTesting", targets: ["AFNetworkingTesting"]),
        .library(name: "AFNetworkingLogging", targets: ["AFNetworkingLogging"]),
        .library(name: "AFNetworkingMetrics", targets: ["AFNetworkingMetrics"]),
        .library(name: "AFNetworkingTracing", targets: ["AFNetworkingTracing"]),
        .library(name: "AFNetworkingOpenAPI", targets: ["AFNetworkingOpenAPI"]),
    ],
    traits: [
        .trait(name: "Logging", description: "AFNetworkingLogging: swift-log loggers per manager and per call."),
        .trait(name: "Metrics", description: "AFNetworkingMetrics: OpenTelemetry HTTP client metrics through swift-metrics."),
        .trait(name: "Tracing", description: "AFNetworkingTracing: a client span per attempt through swift-distributed-tracing."),
        .trait(name: "OpenAPI", description: "AFNetworkingOpenAPI: a swift-openapi-runtime ClientTransport over a URLSessionManager."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .target(name: "AFLocking", path: "Sources/Locking"),
        .target(name: "OpenSSLBridge", path: "Sources/OpenSSLBridge", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "LibcurlBridge", dependencies: ["OpenSSLBridge"], path: "Sources/LibcurlBridge", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "AFSerialization", dependencies: ["AFLocking"], path: "Sources/Serialization"),
        .target(name: "AFSecurity", dependencies: ["OpenSSLBridge"], path: "Sources/Security"),
        .target(name: "PublicSuffixBridge", path: "Sources/PublicSuffixBridge", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "AFTransport", dependencies: ["AFSecurity", "AFLocking", "LibcurlBridge", "OpenSSLBridge"], path: "Sources/Transport"),
        .target(name: "AFSession", dependencies: ["AFSerialization", "AFSecurity", "AFTransport", "AFLocking", "PublicSuffixBridge"], path: "Sources/Session"),
        .target(name: "AFReachability", dependencies: ["AFLocking"], path: "Sources/Reachability"),
        .target(name: "AFNetworking", dependencies: ["AFSerialization", "AFSession", "AFSecurity", "AFReachability"], path: "Sources/AFNetworking"),
        .target(name: "TestServerTLSBridge", dependencies: ["OpenSSLBridge"], path: "Sources/TestServerTLSBridge"),
        .target(name: "AFNetworkingTesting", dependencies: ["AFNetworking", "AFTransport", "AFLocking", "TestServerTLSBridge"], path: "Sources/Testing"),
        .executableTarget(name: "afn", dependencies: ["AFNetworking"], path: "Examples/afn"),
        .executableTarget(name: "rest-client", dependencies: ["AFNetworking"], path: "Examples/RESTClient"),
        .executableTarget(name: "upload-progress", dependencies: ["AFNetworking"], path: "Examples/UploadProgress"),
        .executableTarget(name: "download-resume", dependencies: ["AFNetworking"], path: "Examples/DownloadResume"),
        .executableTarget(name: "certificate-pinning", dependencies: ["AFNetworking"], path: "Examples/CertificatePinning"),
        .executableTarget(name: "mutual-tls", dependencies: ["AFNetworking"], path: "Examples/MutualTLS"),
        .executableTarget(name: "resilient-client", dependencies: ["AFNetworking"], path: "Examples/ResilientClient"),
        .executableTarget(name: "reachability-monitor", dependencies: ["AFNetworking"], path: "Examples/ReachabilityMonitor"),
        .executableTarget(name: "serialization-demo", dependencies: ["AFNetworking"], path: "Examples/SerializationDemo"),
        .executableTarget(name: "event-stream", dependencies: ["AFNetworking"], path: "Examples/EventStream"),
        .executableTarget(name: "jsonlines-export", dependencies: ["AFNetworking"], path: "Examples/JSONLinesExport"),
        // A client generated from openapi.yaml (scripts/generate-openapi-example.sh) over
        // URLSessionManagerTransport; without the OpenAPI trait it only says it needs it.
        .executableTarget(name: "openapi-client", dependencies: [
            "AFNetworking", "AFNetworkingTesting", "AFNetworkingOpenAPI",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openAPI),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: openAPI),
        ], path: "Examples/OpenAPIClient", exclude: ["openapi.yaml", "openapi-generator-config.yaml"]),
        // The integrations' targets compile empty without their traits, so the default build of
        // the benchmarks resolves no package (`instrumentation-instructions` counts what it has).
        .executableTarget(name: "afn-benchmarks", dependencies: [
            "AFNetworking", "AFNetworkingTesting", "AFLocking", "LibcurlBridge", "AFNetworkingLogging", "AFNetworkingMetrics", "AFNetworkingTracing",
            .product(name: "Logging", package: "swift-log", condition: logging),
            .product(name: "CoreMetrics", package: "swift-metrics", condition: metrics),
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: tracing),
        ], path: "Benchmarks"),
        .target(name: "TestSupport", dependencies: ["AFSecurity", "AFNetworkingTesting"], path: "Tests/TestSupport"),
        .executableTarget(name: "transport-exit-probe", dependencies: ["AFNetworking", "AFSession", "AFTransport", "AFSerialization", "AFNetworkingTesting"], path: "Tests/TransportExitProbe"),
        .testTarget(name: "TestingTests", dependencies: ["AFNetworkingTesting", "AFNetworking", "AFTransport", "AFLocking"], path: "Tests/TestingTests"),
        .target(name: "UsersClient", dependencies: ["AFNetworking"], path: "Examples/UsersClient"),
        .testTarget(name: "UsersClientTests", dependencies: ["UsersClient", "AFNetworkingTesting", "AFNetworking"], path: "Examples/UsersClientTests"),
        .testTarget(name: "SerializationTests", dependencies: ["AFSerialization", "TestSupport"], path: "Tests/SerializationTests"),
        .testTarget(name: "AFNCommandTests", dependencies: ["afn", "AFNetworkingTesting", "AFLocking", "TestSupport"], path: "Tests/AFNCommandTests"),
        .testTarget(name: "SecurityTests", dependencies: ["AFSecurity", "TestSupport"], path: "Tests/SecurityTests", exclude: ["Fixtures"]),
        .testTarget(name: "ReachabilityTests", dependencies: ["AFReachability", "AFLocking"], path: "Tests/ReachabilityTests"),
        .testTarget(name: "SessionTests", dependencies: ["AFSession", "AFTransport", "AFSecurity", "AFSerialization", "AFLocking", "AFNetworkingTesting", "TestSupport"], path: "Tests/SessionTests"),
        // The documentation's listings (Sources/AFNetworking/AFNetworking.docc), compiled, and run
        // where they need only the testing product; `scripts/docs.sh` checks each listing against them.
        // The integrations' listings compile with every trait enabled (scripts/test.sh's trait run).
        .testTarget(name: "DocumentationSnippets", dependencies: [
            "AFNetworking", "AFNetworkingTesting", "AFNetworkingLogging", "AFNetworkingMetrics", "AFNetworkingTracing", "AFNetworkingOpenAPI",
            .product(name: "Logging", package: "swift-log", condition: logging),
            .product(name: "CoreMetrics", package: "swift-metrics", condition: metrics),
        ], path: "Documentation/Snippets"),
        .target(name: "AFNetworkingLogging", dependencies: [
            "AFNetworking", "AFLocking", .product(name: "Logging", package: "swift-log", condition: logging),
        ], path: "Sources/Logging"),
        .target(name: "AFNetworkingMetrics", dependencies: [
            "AFNetworking", "AFLocking", .product(name: "CoreMetrics", package: "swift-metrics", condition: metrics),
        ], path: "Sources/Metrics"),
        .target(name: "AFNetworkingTracing", dependencies: [
            "AFNetworking", .product(name: "Tracing", package: "swift-distributed-tracing", condition: tracing),
        ], path: "Sources/Tracing"),
        .target(name: "AFNetworkingOpenAPI", dependencies: [
            "AFNetworking", "AFTransport", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openAPI),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: openAPI),
        ], path: "Sources/OpenAPI"),
        .testTarget(name: "LoggingIntegrationTests", dependencies: [
            "AFNetworkingLogging", "AFNetworkingTesting", "AFLocking", .product(name: "Logging", package: "swift-log", condition: logging),
        ], path: "Tests/LoggingIntegrationTests"),
        .testTarget(name: "MetricsIntegrationTests", dependencies: [
            "AFNetworkingMetrics", "AFNetworkingTesting", .product(name: "CoreMetrics", package: "swift-metrics", condition: metrics),
            .product(name: "MetricsTestKit", package: "swift-metrics", condition: metrics),
        ], path: "Tests/MetricsIntegrationTests"),
        .testTarget(name: "TracingIntegrationTests", dependencies: [
            "AFNetworkingTracing", "AFNetworkingTesting", "AFLocking",
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: tracing),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: tracing),
        ], path: "Tests/TracingIntegrationTests"),
        .testTarget(name: "OpenAPIIntegrationTests", dependencies: [
            "AFNetworkingOpenAPI", "AFNetworkingTesting", "AFLocking",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: openAPI),
            .product(name: "HTTPTypes", package: "swift-http-types", condition: openAPI),
        ], path: "Tests/OpenAPIIntegrationTests"),
        .testTarget(name: "TransportTests", dependencies: ["AFTransport", "AFSession", "AFSecurity", "AFSerialization", "AFLocking", "AFNetworkingTesting", "TestSupport", "transport-exit-probe"], path: "Tests/TransportTests"),
    ]
)

// libFuzzer targets, one per parser of untrusted bytes, built only for fuzzing
// (`scripts/fuzz.sh`: AFN_FUZZ=1 and --sanitize=fuzzer, which supplies their `main`).
if ProcessInfo.processInfo.environment["AFN_FUZZ"] != nil {
    let fuzzers: [(name: String, folder: String, dependencies: [Target.Dependency])] = [
        ("fuzz-certificate", "Certificate", ["AFSecurity"]),
        ("fuzz-response-head", "ResponseHead", ["AFTransport"]),
        ("fuzz-transfer-state", "TransferState", ["AFTransport"]),
        ("fuzz-netlink", "Netlink", ["AFReachability"]),
        ("fuzz-resume-data", "ResumeData", ["AFSession"]),
        ("fuzz-cache-file", "CacheFile", ["AFSession"]),
        ("fuzz-request-encoders", "RequestEncoders", ["AFSerialization"]),
        ("fuzz-response-serializers", "ResponseSerializers", ["AFSerialization"]),
        ("fuzz-combining-marks", "CombiningMarks", ["AFSerialization", "AFSession", "AFNetworkingTesting"]),
        ("fuzz-server-sent-events", "ServerSentEvents", ["AFSession"]),
    ]
    package.targets += fuzzers.map { .executableTarget(name: $0.name, dependencies: $0.dependencies, path: "Tests/Fuzz/\($0.folder)") }
}
