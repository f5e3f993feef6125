#!/usr/bin/env bash
# Builds every example and runs each against a local httpbin; fails if any of them fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/httpbin.sh
httpbin_serve
swift build >/dev/null
bin="$(swift build --show-bin-path)"
for example in rest-client upload-progress download-resume serialization-demo; do
    echo "== $example"
    "$bin/$example" "$AFN_HTTPBIN_URL"
done
echo "== reachability-monitor"
"$bin/reachability-monitor" localhost 1
