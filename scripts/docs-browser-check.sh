#!/usr/bin/env bash
# Renders two pages of the documentation site (scripts/docs.sh's output, the first argument) in
# headless Chromium from a local server, and fails unless each shows its content: the landing
# page its articles, a symbol page its declarations. Skips, saying so, without Chromium.
set -euo pipefail
site="${1:?usage: docs-browser-check.sh SITE}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
    echo "docs: no Chromium here, pages not rendered (Debian: apt-get install chromium)"
    exit 0
fi
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
profile="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$profile"' EXIT
for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break
    sleep 0.1
done
rendered() {  # page path; prints the page's text once its scripts have run
    timeout 90 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
        --virtual-time-budget=20000 --dump-dom "http://127.0.0.1:$port/$1" 2>/dev/null | sed 's/<[^>]*>/ /g' | tr -s '[:space:]' ' '
}
check() {  # page path, then the texts it must show
    local page="$1" text attempt
    shift
    for attempt in 1 2; do
        text="$(rendered "$page")"
        local missing=""
        for expected in "$@"; do
            grep -qF -- "$expected" <<<"$text" || missing="$missing [$expected]"
        done
        if [ -z "$missing" ]; then
            echo "docs: $page renders"
            return 0
        fi
    done
    echo "docs: $page rendered without$missing"
    return 1
}
check documentation/afnetworking "Getting started" "Porting from AFNetworking" "Security model and pinning"
check documentation/afnetworking/httpsessionmanager "HTTPSessionManager | Documentation" "func get" "func post"
