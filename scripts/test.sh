#!/usr/bin/env bash
# Runs the whole test suite against a local httpbin and the TLS servers of
# scripts/tls-servers.sh, which it starts and always stops: every test (managers on the
# libcurl transport), every test again with every package trait enabled (in .build-traits)
# and the openapi-client example that build made, the session tests again on
# URLSession's own protocol (AFN_TEST_TRANSPORT=urlSession), the reachability tests that need
# a private network namespace, then the concurrency suites (classes named *ConcurrencyTests)
# again under the thread sanitizer, the testing product's tests and its example's again in
# parallel processes (`swift test --parallel`, as users run them), and closes with one
# "N passed, N failed" line over all runs. Arguments, if any, go to a single plain `swift test`
# run instead (for example `--filter QueryString`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/httpbin.sh
source scripts/tls-servers.sh
test_servers_serve
if [ $# -gt 0 ]; then
    swift test --disable-swift-testing "$@"
    exit
fi
log="$(mktemp)"
xunit="$(mktemp)"
# Downloads are staged per user under $TMPDIR: a private one per run keeps the partial files of
# another test run at the same time out of this one's checks.
TMPDIR="$(mktemp -d)"
export TMPDIR
trap 'test_servers_stop; rm -rf "$log" "$xunit" "$xunit.log" "$TMPDIR"' EXIT
# Every run goes on after another has failed, so that one failure hides no other; the
# failures are listed again at the end, where a CI log's tail shows them.
status=0
run() { "$@" 2>&1 | tee -a "$log" || status=1; }
# In two runs: `swift test` hands the selected tests to XCTest as one argument, which Linux
# bounds at 128 KiB (MAX_ARG_STRLEN); every test's name at once is longer than that.
run swift test --disable-swift-testing --filter '^SessionTests\.'
run swift test --disable-swift-testing --skip-build --skip '^SessionTests\.' --skip ReachabilityNamespaceTests
# The whole suite again with every trait enabled (their packages fetched there only), in a
# build of their own so that neither build undoes the other's: the integrations' tests,
# compiled empty above, run here, and every other test shows that enabling them changes
# nothing it checks.
run swift test --disable-swift-testing --scratch-path .build-traits --enable-all-traits --filter '^SessionTests\.'
run swift test --disable-swift-testing --scratch-path .build-traits --enable-all-traits --skip-build --skip '^SessionTests\.' --skip ReachabilityNamespaceTests
# The OpenAPI example, built by that run (no build of its own): its generated client calls its
# own server on 127.0.0.1 through URLSessionManagerTransport.
run "$(swift build --scratch-path .build-traits --enable-all-traits --show-bin-path)/openapi-client"
run env AFN_TEST_TRANSPORT=urlSession swift test --disable-swift-testing --skip-build --filter '^SessionTests\.'
run bash scripts/reachability-namespace-tests.sh
run swift test --disable-swift-testing --scratch-path .build-tsan --sanitize=thread --filter 'ConcurrencyTests'
if ! swift test --disable-swift-testing --skip-build --parallel --filter '^(TestingTests|UsersClientTests)\.' --xunit-output "$xunit" >"$xunit.log" 2>&1; then
    cat "$xunit.log"
    grep -E "error: |' failed \(" "$xunit.log" >>"$log" || true
    status=1
fi
tail -n 3 "$xunit.log"
# Each run's total follows its "Test Suite 'All tests'" (or 'Selected tests') line; sum them.
python3 - "$log" "$xunit" "$status" <<'PY'
import re, sys
executed = skipped = failed = 0
total_follows = False
for line in open(sys.argv[1], errors="replace"):
    if re.search(r"Test Suite '(All|Selected) tests' (passed|failed)", line):
        total_follows = True
        continue
    match = re.search(r"Executed (\d+) tests?, with (?:(\d+) tests? skipped and )?(\d+) failures?", line)
    if match and total_follows:
        executed += int(match.group(1))
        skipped += int(match.group(2) or 0)
        failed += int(match.group(3))
        total_follows = False
# The parallel run reports in its xUnit file.
suite = re.search(r'<testsuite [^>]*errors="(\d+)" tests="(\d+)" failures="(\d+)"', open(sys.argv[2], errors="replace").read())
if suite:
    executed += int(suite.group(2))
    failed += int(suite.group(1)) + int(suite.group(3))
else:
    print("the parallel run left no xUnit report")
    failed += 1
failures = [line.rstrip() for line in open(sys.argv[1], errors="replace")
            if ": error: " in line or re.search(r"Test Case '[^']*' failed \(", line)
            or "Fatal error" in line or "ThreadSanitizer" in line]
if failures:
    print("failures:")
    print("\n".join(failures[:60]))
if sys.argv[3] != "0" and failed == 0:
    print("a run failed without a failing test: a crash or a build error (see above)")
    failed += 1
print(f"tests: {executed - skipped - failed} passed, {failed} failed, {skipped} skipped")
PY
exit "$status"
