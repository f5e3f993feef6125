#!/usr/bin/env bash
# Runs every benchmark in release mode against local servers it starts and stops: the memory
# checks (scripts/memory-check.sh), serializer throughput, the request overhead against nginx
# (Debian's nginx-light, installed here if missing) in requests per second and in instructions
# per request (valgrind's callgrind), the same with each server-side integration on (a build
# with every trait), requests answered by the test-support product's stub
# transport against the same requests to nginx, and large transfers against the bulk
# server, including 10 MB bodies in memory against libcurl's multi interface driven directly,
# `afn` itself and bodies streamed to a consumer. Figures are printed as `name: value unit` lines.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if ! command -v nginx >/dev/null 2>&1 || ! command -v valgrind >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light valgrind >/dev/null
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
"$bin/afn-benchmarks" request-instructions "$NGINX_URL/1k.bin" 1000
# The integrations' cost: a build with every trait, the GET with each integration on (no-op
# backends) against none, and this default build's manager as the baseline, in the same rounds.
swift build -c release --enable-all-traits --scratch-path .build-release-traits --product afn-benchmarks >/dev/null
traits_bin="$(swift build -c release --enable-all-traits --scratch-path .build-release-traits --show-bin-path)"
"$traits_bin/afn-benchmarks" instrumentation-instructions "$NGINX_URL/1k.bin" 1000 5 --baseline "$bin/afn-benchmarks"
"$bin/afn-benchmarks" stub-requests "$NGINX_URL/1k.bin"
"$bin/afn-benchmarks" cache-hit "$NGINX_URL/1k.bin"

source scripts/python-servers.sh
trap 'nginx_stop; bulk_stop; rm -rf "$files"' EXIT
bulk_start
"$bin/afn-benchmarks" transfer "$BULK_URL" "$bin/afn"
"$bin/afn-benchmarks" bulk-in-memory "$BULK_URL"
"$bin/afn-benchmarks" streaming "$BULK_URL"
