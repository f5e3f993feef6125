#!/usr/bin/env bash
# Fuzzes every parser of untrusted bytes, and the transfer's state machine, with libFuzzer and the address sanitizer (which also
# checks for leaks): builds the targets of Tests/Fuzz (Package.swift declares them when
# AFN_FUZZ is set) and runs each for SECONDS (default 20) from its committed seed corpus
# (Tests/Fuzz/Corpus/<target>). New inputs go to a scratch copy of the corpus; a crash fails the
# run and leaves the input in .build-fuzz/crashes/<target>, to become a regression test (and a
# seed). CI runs the short form.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   targets: certificate response-head netlink
#        resume-data request-encoders response-serializers transfer-state combining-marks
#        server-sent-events cache-file
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-20}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(certificate response-head netlink resume-data request-encoders response-serializers transfer-state combining-marks server-sent-events cache-file)
scratch="$root/.build-fuzz"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
for target in "${targets[@]}"; do
    # Products one by one: a whole-package build with the fuzzer sanitizer would also build the
    # examples without their `main`.
    # The coverage flags are explicit: with --sanitize=fuzzer alone SwiftPM left the Swift modules
    # without coverage counters (libFuzzer then mutates blindly: "Is the code instrumented for
    # coverage?").
    AFN_FUZZ=1 swift build --scratch-path "$scratch" --sanitize=fuzzer --sanitize=address \
        -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp --product "fuzz-$target" 2>&1 \
        | grep -v "ld.gold: warning" | tail -n 3
    binary="$scratch/debug/fuzz-$target"
    corpus="$work/$target"
    crashes="$scratch/crashes/$target"
    mkdir -p "$corpus" "$crashes"
    cp Tests/Fuzz/Corpus/"$target"/* "$corpus"/
    # Swift's backtracer would hold a crashing process open; libFuzzer reports the crash itself.
    if SWIFT_BACKTRACE=enable=no LSAN_OPTIONS="suppressions=$root/scripts/leak-suppressions.txt" "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
        -artifact_prefix="$crashes/" "$corpus" >"$work/$target.log" 2>&1 \
        && ! grep -q "Is the code instrumented for coverage" "$work/$target.log"; then
        echo "fuzz: $target: $(grep -E '^Done [0-9]+ runs' "$work/$target.log") ($(grep -oE 'cov: [0-9]+' "$work/$target.log" | tail -n 1))"
    else
        echo "fuzz: $target FAILED (a crash, a leak, or no coverage); the end of its log follows, any input is in $crashes" >&2
        tail -n 40 "$work/$target.log" >&2
        failed=1
    fi
done
exit "$failed"
