#!/usr/bin/env bash
# The integrations' packages stay out of a consumer that does not ask for them: builds
# Tests/Fixtures/DefaultConsumer (AFNetworking by path, default traits) and asserts that it
# resolved no package but AFNetworking (no Package.resolved pin, an empty .build/checkouts, one
# package in show-dependencies); then, for each trait, resolves a consumer enabling it alone and
# asserts that exactly that trait's packages were fetched. Ends with one "N passed, N failed" line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fixture="$root/Tests/Fixtures/DefaultConsumer"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
check() { # name, expected, actual
    if [ "$2" == "$3" ]; then
        passed=$((passed + 1))
        echo "trait-check: $1: ok"
    else
        failed=$((failed + 1))
        echo "trait-check: $1: expected [$2], got [$3]"
    fi
}
# The identities pinned in the Package.resolved of $1 (none when there is no file), sorted.
pins() { [ -f "$1/Package.resolved" ] && python3 -c 'import json, sys; print(" ".join(sorted(p["identity"] for p in json.load(open(sys.argv[1])).get("pins", []))))' "$1/Package.resolved" || true; }
checkouts() { [ -d "$1" ] && ls "$1" | sort | tr '\n' ' ' | sed 's/ $//' || true; }

# The fixture, copied so that its build and resolution are this run's own.
cp -R "$fixture" "$work/default"
rm -rf "$work/default/.build" "$work/default/Package.resolved"
sed -i "s|path: \"../../..\"|path: \"$root\"|" "$work/default/Package.swift"
swift build --package-path "$work/default" --scratch-path "$work/default/.build"
check "default traits: Package.resolved pins" "" "$(pins "$work/default")"
check "default traits: checkouts" "" "$(checkouts "$work/default/.build/checkouts")"
check "default traits: packages in the graph" "1" \
    "$(swift package --package-path "$work/default" --scratch-path "$work/default/.build" show-dependencies --format flatlist | grep -c .)"

# Each trait alone: only its own packages are fetched (swift-distributed-tracing 1.7 carries
# ServiceContextModule itself).
for entry in "Logging:swift-log" "Metrics:swift-metrics" "Tracing:swift-distributed-tracing" "OpenAPI:swift-http-types swift-openapi-runtime"; do
    trait="${entry%%:*}"
    expected="${entry#*:}"
    consumer="$work/$trait"
    cp -R "$work/default" "$consumer"
    rm -rf "$consumer/.build"
    sed -i "s|path: \"$root\"|path: \"$root\", traits: [\"$trait\"]|" "$consumer/Package.swift"
    swift package --package-path "$consumer" --scratch-path "$consumer/.build" resolve
    check "$trait: Package.resolved pins" "$expected" "$(pins "$consumer")"
    check "$trait: checkouts" "$expected" "$(checkouts "$consumer/.build/checkouts")"
done
echo "trait-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
