#!/usr/bin/env bash
# Builds every example and runs each against a local httpbin (the pinning and mutual-TLS
# examples against local TLS servers); fails if any of them fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/httpbin.sh
source scripts/tls-servers.sh
test_servers_serve
swift build >/dev/null
bin="$(swift build --show-bin-path)"
for example in rest-client upload-progress download-resume serialization-demo; do
    echo "== $example"
    "$bin/$example" "$AFN_HTTPBIN_URL"
done
echo "== reachability-monitor"
"$bin/reachability-monitor" localhost 1
echo "== certificate-pinning"
fixtures=Tests/SecurityTests/Fixtures
"$bin/certificate-pinning" "$AFN_TLS_LOCALHOST_URL" "$fixtures/localhost.pem" "$fixtures/self-signed.der"
echo "== mutual-tls"
"$bin/mutual-tls" "$AFN_TLS_MTLS_URL" "$fixtures/root-ca.pem" "$fixtures/client.pem" "$fixtures/client.key"
echo "== resilient-client"
"$bin/resilient-client" "$AFN_FAULT_URL"
echo "== event-stream"
"$bin/event-stream" "$AFN_FAULT_URL"
echo "== jsonlines-export"
"$bin/jsonlines-export" "$AFN_FAULT_URL"
