#!/usr/bin/env bash
# Runs ReachabilityNamespaceTests in a private user, network and mount namespace: loopback up,
# an /etc/hosts naming the test target, a resolver on the namespace's loopback, and the test binary flipping veth links, addresses and
# routes there. The machine's network is never touched. Needs root or unprivileged user
# namespaces; without them it says so and skips (set AFN_REQUIRE_NETNS=1 to fail instead).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if ! unshare -r -n -m true 2>/dev/null; then
    echo "SKIPPED reachability namespace tests: this machine allows no user/network namespaces (unshare -rnm)."
    [ "${AFN_REQUIRE_NETNS:-0}" = "1" ] && exit 1
    exit 0
fi
swift build --build-tests >/dev/null
xctest="$(swift build --show-bin-path)/AFNetworkingPackageTests.xctest"
hosts="$(mktemp)"
resolver="$(mktemp)"
trap 'rm -f "$hosts" "$resolver"' EXIT
printf '127.0.0.1 localhost\n::1 localhost\n203.0.113.10 reachability-target.test\n' >"$hosts"
# DNS goes to the namespace's own loopback, where nothing listens: no query leaves, and a
# name outside the hosts file fails at once.
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$resolver"
output="$(mktemp)"
AFN_NETNS=1 unshare -r -n -m sh -c "mount --bind '$hosts' /etc/hosts && mount --bind '$resolver' /etc/resolv.conf && ip link set lo up && exec '$xctest' ReachabilityTests.ReachabilityNamespaceTests" 2>&1 | tee "$output"
status=${PIPESTATUS[0]}
if grep -q "skipped" "$output" || ! grep -qE "Executed [1-9][0-9]* tests?, with 0 failures" "$output"; then
    echo "reachability namespace tests did not all run and pass"
    status=1
fi
rm -f "$output"
exit "$status"
