#!/usr/bin/env bash
# The demo: starts a local httpbin, runs the serialization demo against it, stops the server.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/httpbin.sh
httpbin_serve
swift run serialization-demo "$AFN_HTTPBIN_URL"
