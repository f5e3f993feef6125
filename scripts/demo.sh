#!/usr/bin/env bash
# The demo: starts a local httpbin, drives the `afn` client against it (GET with a query, a
# JSON POST, a streamed multipart upload, a download, an HTTP error, reachability), then runs
# the serialization demo, and stops the server.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/httpbin.sh
httpbin_serve
swift build --product afn >/dev/null
swift build --product serialization-demo >/dev/null
afn="$(swift build --show-bin-path)/afn"
work="$(mktemp -d)"
trap 'httpbin_stop; rm -rf "$work"' EXIT
step() { printf '\n$ afn %s\n' "$*"; }

step get "$AFN_HTTPBIN_URL/get" --query "q=hello world"
"$afn" get "$AFN_HTTPBIN_URL/get" --query "q=hello world"
step post "$AFN_HTTPBIN_URL/post" --json '{"name":"Al","tags":["x","y"]}'
"$afn" post "$AFN_HTTPBIN_URL/post" --json '{"name":"Al","tags":["x","y"]}'
head -c 2000000 /dev/urandom >"$work/report.bin"
step upload "$AFN_HTTPBIN_URL/post" --file report.bin --field title=Report
"$afn" upload "$AFN_HTTPBIN_URL/post" --file "$work/report.bin" --field title=Report >/dev/null
step download "$AFN_HTTPBIN_URL/range/102400?duration=1" --output range.bin
"$afn" download "$AFN_HTTPBIN_URL/range/102400?duration=1" --output "$work/range.bin"
step get "$AFN_HTTPBIN_URL/status/418"
"$afn" get "$AFN_HTTPBIN_URL/status/418" || echo "(exit code $?: an HTTP error status)"
step reachability --host localhost
"$afn" reachability --host localhost
printf '\n$ swift run serialization-demo %s\n' "$AFN_HTTPBIN_URL"
"$(swift build --show-bin-path)/serialization-demo" "$AFN_HTTPBIN_URL"
