#!/usr/bin/env bash
# Builds the benchmarks in release mode and runs the multipart memory check: a 1 GiB file
# streamed through a multipart body, peak resident memory printed; exits non-zero over 64 MiB.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
swift build -c release --product afn-benchmarks
"$(swift build -c release --show-bin-path)/afn-benchmarks" multipart-memory "$@"
