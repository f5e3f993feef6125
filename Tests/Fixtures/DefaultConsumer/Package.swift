// swift-tools-version:6.1
import PackageDescription

// A consumer of AFNetworking with its default traits, as an app would be: it must fetch,
// resolve and build nothing but AFNetworking (scripts/trait-check.sh).
let package = Package(
    name: "DefaultConsumer",
    dependencies: [.package(name: "AFNetworking", path: "../../..")],
    targets: [.executableTarget(name: "DefaultConsumer", dependencies: [.product(name: "AFNetworking", package: "AFNetworking")])]
)
