#!/usr/bin/env bash
# Runs the whole test suite against a local httpbin it starts and always stops.
# Extra arguments go to `swift test` (for example `--filter QueryString`).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
source scripts/httpbin.sh
trap httpbin_stop EXIT
httpbin_start
swift test "$@"
