// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AFNetworking",
    products: [
        .library(name: "AFNetworking", targets: ["AFNetworking"]),
    ],
    targets: [
        .target(name: "AFSerialization", path: "Sources/Serialization"),
        .target(name: "CurlBridge", path: "Sources/CurlBridge", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "AFSession", dependencies: ["AFSerialization", "AFSecurity"], path: "Sources/Session"),
        .target(name: "AFSecurity", dependencies: ["AFSerialization", "CurlBridge"], path: "Sources/Security"),
        .target(name: "AFReachability", dependencies: ["AFSerialization"], path: "Sources/Reachability"),
        .target(name: "AFNetworking", dependencies: ["AFSerialization", "AFSession", "AFSecurity", "AFReachability"], path: "Sources/AFNetworking"),
        .executableTarget(name: "afn", dependencies: ["AFNetworking"], path: "Examples/afn"),
        .executableTarget(name: "rest-client", dependencies: ["AFNetworking"], path: "Examples/RESTClient"),
        .executableTarget(name: "upload-progress", dependencies: ["AFNetworking"], path: "Examples/UploadProgress"),
        .executableTarget(name: "download-resume", dependencies: ["AFNetworking"], path: "Examples/DownloadResume"),
        .executableTarget(name: "certificate-pinning", dependencies: ["AFNetworking"], path: "Examples/CertificatePinning"),
        .executableTarget(name: "reachability-monitor", dependencies: ["AFNetworking"], path: "Examples/ReachabilityMonitor"),
        .executableTarget(name: "serialization-demo", dependencies: ["AFNetworking"], path: "Examples/SerializationDemo"),
        .executableTarget(name: "afn-benchmarks", dependencies: ["AFNetworking"], path: "Benchmarks"),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .executableTarget(name: "transport-exit-probe", dependencies: ["AFNetworking"], path: "Tests/TransportExitProbe"),
        .testTarget(name: "SerializationTests", dependencies: ["AFSerialization", "TestSupport"], path: "Tests/SerializationTests"),
        .testTarget(name: "AFNCommandTests", dependencies: ["afn", "TestSupport"], path: "Tests/AFNCommandTests"),
        .testTarget(name: "SecurityTests", dependencies: ["AFSecurity", "AFSession", "AFSerialization", "TestSupport", "transport-exit-probe"], path: "Tests/SecurityTests", exclude: ["Fixtures"]),
        .testTarget(name: "ReachabilityTests", dependencies: ["AFReachability", "AFSerialization"], path: "Tests/ReachabilityTests"),
        .testTarget(name: "SessionTests", dependencies: ["AFSession", "AFSecurity", "AFSerialization", "TestSupport"], path: "Tests/SessionTests"),
    ]
)
