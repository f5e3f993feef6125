#!/usr/bin/env bash
# The demo: starts a local httpbin, runs the serialization demo against it, stops the server.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
source scripts/httpbin.sh
trap httpbin_stop EXIT
httpbin_start
swift run serialization-demo "$AFN_HTTPBIN_URL"
