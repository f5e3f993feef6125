#!/usr/bin/env bash
# Builds the benchmarks in release mode and runs the memory checks, each printing its figures
# and failing over its limit:
# - multipart-memory: a multipart body streamed from a 1 GiB file (peak limit 64 MiB);
# - slow-consumer-memory: a 256 MiB download with a progress consumer taking 0.5 ms per call,
#   against a plain URLSession delegate doing the same (growth limit 64 MiB), served by the
#   local bulk server.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
swift build -c release --product afn-benchmarks
bench="$(swift build -c release --show-bin-path)/afn-benchmarks"
"$bench" multipart-memory

log="$(mktemp)"
python3 scripts/bulk_server.py 0 >"$log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -f "$log"' EXIT
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's/^listening on \([0-9]*\)$/\1/p' "$log")"
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "bulk server did not start"; cat "$log"; exit 1; }
"$bench" slow-consumer-memory "http://127.0.0.1:$port"
