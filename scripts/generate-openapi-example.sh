#!/usr/bin/env bash
# Regenerates the openapi-client example's client (Examples/OpenAPIClient/Generated:
# Client.swift, Types.swift and the Types+*.swift files it is split into) from
# Examples/OpenAPIClient/openapi.yaml and its openapi-generator-config.yaml, with
# swift-openapi-generator 1.14.3 built in a throwaway package outside the repository
# ($AFN_OPENAPI_GENERATOR_DIR, default ${TMPDIR:-/tmp}/afn-openapi-generator): the repository
# depends on no generator, and the example builds from the committed files (run this after
# editing openapi.yaml; CI does not). Each generated file is wrapped in `#if OpenAPI` so that
# the example builds, doing nothing, without the trait.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
example="$root/Examples/OpenAPIClient"
generator="${AFN_OPENAPI_GENERATOR_DIR:-${TMPDIR:-/tmp}/afn-openapi-generator}"
mkdir -p "$generator/Sources/generate"
cat >"$generator/Package.swift" <<'SWIFT'
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "generate",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")],
    targets: [.executableTarget(name: "generate", dependencies: [.product(name: "swift-openapi-generator", package: "swift-openapi-generator")])]
)
SWIFT
echo 'print("Run swift-openapi-generator instead.")' >"$generator/Sources/generate/main.swift"
swift build --package-path "$generator" --product swift-openapi-generator
output="$(mktemp -d)"
trap 'rm -rf "$output"' EXIT
"$(swift build --package-path "$generator" --show-bin-path)/swift-openapi-generator" generate \
    --config "$example/openapi-generator-config.yaml" --output-directory "$output" "$example/openapi.yaml"
rm -rf "$example/Generated"
mkdir -p "$example/Generated"
for path in "$output"/*.swift; do
    file="$(basename "$path")"
    { echo "#if OpenAPI"; cat "$path"; echo "#endif"; } >"$example/Generated/$file"
    echo "generated: Examples/OpenAPIClient/Generated/$file"
done
