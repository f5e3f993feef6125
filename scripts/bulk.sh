# Sourced by the benchmark scripts: scripts/bulk_server.py on a free port of 127.0.0.1.
# After `bulk_start`, BULK_URL holds its base URL; `bulk_stop` ends it.
bulk_start() {
    local port
    BULK_LOG="$(mktemp)"
    python3 "$(dirname "${BASH_SOURCE[0]}")/bulk_server.py" 0 >"$BULK_LOG" 2>&1 &
    BULK_PID=$!
    for _ in $(seq 1 100); do
        port="$(sed -n 's/^listening on \([0-9]*\)$/\1/p' "$BULK_LOG")"
        if [ -n "$port" ]; then
            export BULK_URL="http://127.0.0.1:$port"
            return 0
        fi
        sleep 0.1
    done
    echo "bulk server did not start" >&2
    cat "$BULK_LOG" >&2
    return 1
}

bulk_stop() {
    [ -n "${BULK_PID:-}" ] && kill "$BULK_PID" 2>/dev/null || true
    [ -n "${BULK_LOG:-}" ] && rm -f "$BULK_LOG"
    BULK_PID=""
}
