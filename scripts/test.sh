#!/usr/bin/env bash
# Runs the whole test suite against a local httpbin it starts and always stops: every test,
# the reachability tests that need a private network namespace, then the concurrency suites
# (classes named *ConcurrencyTests) again under the thread sanitizer. Arguments, if any, go to a single plain `swift test` run instead
# (for example `--filter QueryString`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/httpbin.sh
httpbin_serve
if [ $# -gt 0 ]; then
    swift test "$@"
    exit
fi
swift test --skip ReachabilityNamespaceTests
bash scripts/reachability-namespace-tests.sh
swift test --scratch-path .build-tsan --sanitize=thread --filter 'ConcurrencyTests'
