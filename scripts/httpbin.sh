# Sourced by the other scripts: starts httpbin under gunicorn on a free port of 127.0.0.1
# and stops it again. After `httpbin_start`, AFN_HTTPBIN_URL holds its base URL.

# For a script that needs the server until it exits: set-up, start, stop on exit.
httpbin_serve() {
    bash "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
    trap httpbin_stop EXIT
    httpbin_start
}
httpbin_start() {
    local root venv log port
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv"
    HTTPBIN_DIR="$(mktemp -d)"
    log="$HTTPBIN_DIR/gunicorn.log"
    : >"$log" # made before the server starts: the loop below reads it at once
    # Threaded workers: URLSession sends stream bodies chunked, which gunicorn accepts and
    # Werkzeug's own development server refuses.
    "$venv/bin/gunicorn" --bind 127.0.0.1:0 --workers 4 --worker-class gthread --threads 16 \
        --no-control-socket --log-level info --pid "$HTTPBIN_DIR/pid" httpbin:app >"$log" 2>&1 &
    HTTPBIN_PID=$!
    for _ in $(seq 1 100); do
        port="$(sed -n 's/.*Listening at: http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -n 1)"
        if [ -n "$port" ] && "$venv/bin/python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)" \
            "http://127.0.0.1:$port/get" 2>/dev/null; then
            export AFN_HTTPBIN_URL="http://127.0.0.1:$port"
            echo "httpbin: listening at $AFN_HTTPBIN_URL"
            return 0
        fi
        if ! kill -0 "$HTTPBIN_PID" 2>/dev/null; then break; fi
        sleep 0.1
    done
    echo "httpbin: failed to start; its log follows" >&2
    cat "$log" >&2
    return 1
}

# httpbin on a Unix domain socket; after `httpbin_unix_start`, AFN_HTTPBIN_SOCKET holds its path.
httpbin_unix_start() {
    local root venv
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv"
    HTTPBIN_UNIX_DIR="$(mktemp -d)"
    "$venv/bin/gunicorn" --bind "unix:$HTTPBIN_UNIX_DIR/httpbin.sock" --workers 1 --worker-class gthread --threads 8 \
        --no-control-socket --log-level info httpbin:app >"$HTTPBIN_UNIX_DIR/gunicorn.log" 2>&1 &
    HTTPBIN_UNIX_PID=$!
    for _ in $(seq 1 100); do
        if "$venv/bin/python" -c "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])" \
            "$HTTPBIN_UNIX_DIR/httpbin.sock" 2>/dev/null; then
            export AFN_HTTPBIN_SOCKET="$HTTPBIN_UNIX_DIR/httpbin.sock"
            echo "httpbin: listening at unix:$AFN_HTTPBIN_SOCKET"
            return 0
        fi
        sleep 0.1
    done
    echo "httpbin: failed to start on a Unix socket; its log follows" >&2
    cat "$HTTPBIN_UNIX_DIR/gunicorn.log" >&2
    return 1
}

httpbin_unix_stop() {
    if [ -n "${HTTPBIN_UNIX_PID:-}" ] && kill -0 "$HTTPBIN_UNIX_PID" 2>/dev/null; then
        kill "$HTTPBIN_UNIX_PID" 2>/dev/null || true
        wait "$HTTPBIN_UNIX_PID" 2>/dev/null || true
    fi
    [ -n "${HTTPBIN_UNIX_DIR:-}" ] && rm -rf "$HTTPBIN_UNIX_DIR"
    HTTPBIN_UNIX_PID=""
}

httpbin_stop() {
    if [ -n "${HTTPBIN_PID:-}" ] && kill -0 "$HTTPBIN_PID" 2>/dev/null; then
        kill "$HTTPBIN_PID" 2>/dev/null || true
        wait "$HTTPBIN_PID" 2>/dev/null || true
    fi
    [ -n "${HTTPBIN_DIR:-}" ] && rm -rf "$HTTPBIN_DIR"
    HTTPBIN_PID=""
}
