#!/usr/bin/env bash
# Builds the benchmarks in release mode and runs the memory checks, each printing its figures
# and failing over its limit:
# - multipart-memory: a multipart body streamed from a 1 GiB file (peak limit 64 MiB);
# - slow-consumer-memory: a 256 MiB download with a progress consumer taking 0.5 ms per call,
#   against a plain URLSession delegate doing the same (growth limit 64 MiB), served by the
#   local bulk server;
# - gzip-bomb-memory: a 1 GiB gzip bomb from the fault server fetched with the default response
#   limits fails with the decompression limit (peak limit 64 MiB: 42.8-46.5 MiB measured in
#   five runs, since a body kept in memory is read 64 KiB at a time);
# - soak, short form: 10,000 mixed requests through one manager, every outcome as expected,
#   descriptors flat, memory growth after the first 1,000 under 16 MiB (the 100,000-request
#   run and its 8 MiB limit are in BENCHMARKS.md: the first thousands still warm the allocator).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
swift build -c release --product afn-benchmarks
bench="$(swift build -c release --show-bin-path)/afn-benchmarks"
"$bench" multipart-memory

source scripts/python-servers.sh
trap 'bulk_stop; fault_stop' EXIT
bulk_start
"$bench" slow-consumer-memory "$BULK_URL"
fault_start
"$bench" gzip-bomb-memory "$AFN_FAULT_URL" 64
"$bench" soak "$BULK_URL" "$AFN_FAULT_URL" 10000 16
