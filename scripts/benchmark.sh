#!/usr/bin/env bash
# Runs every benchmark in release mode against local servers it starts and stops: the memory
# checks (scripts/memory-check.sh), serializer throughput, the request overhead against nginx
# (Debian's nginx-light, installed here if missing), and large transfers against the bulk
# server, including `afn` itself. Figures are printed as `name: value unit` lines.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if ! command -v nginx >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
fi
bash scripts/memory-check.sh
files="$(mktemp -d)"
head -c 1024 /dev/urandom >"$files/1k.bin"
source scripts/nginx.sh
trap 'nginx_stop; rm -rf "$files"' EXIT
nginx_start "$files"
swift build -c release --product afn >/dev/null
bin="$(swift build -c release --show-bin-path)"
"$bin/afn-benchmarks" serializer-throughput
"$bin/afn-benchmarks" request-overhead "$NGINX_URL/1k.bin"

log="$files/bulk.log"
python3 scripts/bulk_server.py 0 >"$log" 2>&1 &
bulk_pid=$!
trap 'nginx_stop; kill "$bulk_pid" 2>/dev/null || true; rm -rf "$files"' EXIT
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's/^listening on \([0-9]*\)$/\1/p' "$log")"
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "bulk server did not start"; exit 1; }
"$bin/afn-benchmarks" transfer "http://127.0.0.1:$port" "$bin/afn"
