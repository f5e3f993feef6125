#!/usr/bin/env bash
# Runs the stress and concurrency suites (classes named *ConcurrencyTests, the 5,000-request
# stress test among them) under the address sanitizer and its leak checker, against the test
# servers, which it starts and stops; fails on any leak that scripts/leak-suppressions.txt does
# not name (it names only defects of the libraries underneath). An indirect leak, reachable only
# from a suppressed one (the test case objects XCTest keeps, and what they hold), is printed but
# does not fail the check. Arguments replace the filter.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/httpbin.sh
source scripts/tls-servers.sh
test_servers_serve
filter="${1:-ConcurrencyTests}"
log="$(mktemp)"
trap 'test_servers_stop; rm -f "$log"' EXIT
# Skipped: the test whose probe processes exit on purpose while transports are torn down (what
# they leave at exit is the point of that test, not a leak of a running program).
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$root/scripts/leak-suppressions.txt:print_suppressions=1:exitcode=0" \
    swift test --disable-swift-testing --scratch-path .build-asan --sanitize=address --filter "$filter" \
    --skip testProcessExitingWhileTransportsAreTornDownExitsCleanly 2>&1 | tee "$log"
direct="$(grep -c '^Direct leak of' "$log" || true)"
echo "leak-check: $direct direct leak(s) not suppressed"
[ "$direct" -eq 0 ]
