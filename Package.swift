// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AFNetworking",
    products: [
        .library(name: "AFNetworking", targets: ["AFNetworking"]),
    ],
    targets: [
        .target(name: "AFSerialization", path: "Sources/Serialization"),
        .target(name: "AFNetworking", dependencies: ["AFSerialization"], path: "Sources/AFNetworking"),
        .executableTarget(name: "serialization-demo", dependencies: ["AFNetworking"], path: "Examples/SerializationDemo"),
        .executableTarget(name: "afn-benchmarks", dependencies: ["AFNetworking"], path: "Benchmarks"),
        .testTarget(name: "SerializationTests", dependencies: ["AFSerialization"], path: "Tests/SerializationTests"),
    ]
)
