#!/usr/bin/env bash
# One-time set-up on a fresh machine: the Python virtualenv with the local test servers, and
# Debian's tinyproxy, microsocks and stunnel4 (the proxy tests) and nginx-light (HTTP/2 tests,
# benchmarks). Safe to run again; it only installs what is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi

missing=""
command -v tinyproxy >/dev/null 2>&1 || missing="$missing tinyproxy"
command -v microsocks >/dev/null 2>&1 || missing="$missing microsocks"
command -v stunnel >/dev/null 2>&1 || missing="$missing stunnel4"
command -v nginx >/dev/null 2>&1 || missing="$missing nginx-light"
if [ -n "$missing" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

if [ ! -x "$venv/bin/gunicorn" ] || ! "$venv/bin/python" -c 'import httpbin' >/dev/null 2>&1; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$root/scripts/requirements.txt"
fi
echo "setup: test servers ready in $venv"
