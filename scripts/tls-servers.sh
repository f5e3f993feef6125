# Sourced by the test script: starts one httpbin under gunicorn over TLS per fixture
# certificate (Tests/SecurityTests/Fixtures), each on a free port of 127.0.0.1 with its own
# access log, and stops them again. After `tls_servers_start`, AFN_TLS_<NAME>_URL holds a
# server's base URL (https://localhost:PORT) and AFN_TLS_<NAME>_LOG its access log, which
# records every HTTP request line the server received.

source "$(dirname "${BASH_SOURCE[0]}")/python-servers.sh"
source "$(dirname "${BASH_SOURCE[0]}")/proxy-servers.sh"
source "$(dirname "${BASH_SOURCE[0]}")/nginx.sh"

# For a script that needs httpbin (scripts/httpbin.sh, sourced first; also on a Unix socket),
# the TLS servers, the fault server (scripts/fault_server.py), the proxies
# (scripts/proxy-servers.sh) and nginx for HTTP/2 (scripts/nginx.sh) until it exits: set-up, start all, stop all on exit.
test_servers_serve() {
    httpbin_serve
    trap 'test_servers_stop' EXIT
    httpbin_unix_start
    tls_servers_start
    fault_start
    proxy_servers_start
    nginx_h2_start
}

test_servers_stop() {
    httpbin_stop
    httpbin_unix_stop
    tls_servers_stop
    fault_stop
    proxy_servers_stop
    nginx_h2_stop
}

TLS_SERVER_FIXTURES="localhost chained-localhost-fullchain expired wrong-host self-signed"
# The mutual-TLS server (AFN_TLS_MTLS_URL): the localhost certificate, and a handshake that
# requires a client certificate signed by the fixture client CA; its access log ends each line
# with the accepted client's subject (scripts/mtls_app.py).
TLS_SERVER_NAMES="$TLS_SERVER_FIXTURES mtls"

tls_servers_start() {
    local root venv fixtures name variable log port
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    venv="$root/.venv"
    fixtures="$root/Tests/SecurityTests/Fixtures"
    TLS_SERVERS_DIR="$(mktemp -d)"
    TLS_SERVER_PIDS=""
    for name in $TLS_SERVER_NAMES; do
        local certificate="$name" app=(httpbin:app)
        if [ "$name" = mtls ]; then
            certificate=localhost
            app=(--cert-reqs 2 --ca-certs "$fixtures/client-ca.pem" --pythonpath "$root/scripts"
                 --access-logformat '%(h)s "%(r)s" %(s)s %({x-client-subject}o)s' mtls_app:app)
        fi
        # Made before the server starts: the loop below reads it before the background job may
        # have opened it.
        : >"$TLS_SERVERS_DIR/$name.log"
        "$venv/bin/gunicorn" --bind 127.0.0.1:0 --workers 1 --worker-class gthread --threads 8 \
            --no-control-socket --log-level info --certfile "$fixtures/$certificate.pem" --keyfile "$fixtures/${certificate%-fullchain}.key" \
            --access-logfile "$TLS_SERVERS_DIR/$name.access.log" "${app[@]}" >"$TLS_SERVERS_DIR/$name.log" 2>&1 &
        TLS_SERVER_PIDS="$TLS_SERVER_PIDS $!"
    done
    for name in $TLS_SERVER_NAMES; do
        log="$TLS_SERVERS_DIR/$name.log"
        port=""
        for _ in $(seq 1 100); do
            port="$(sed -n 's/.*Listening at: https:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -n 1)"
            [ -n "$port" ] && grep -q "Booting worker" "$log" && break
            sleep 0.1
        done
        if [ -z "$port" ]; then
            echo "tls-servers: $name failed to start; its log follows" >&2
            cat "$log" >&2
            return 1
        fi
        variable="$(echo "${name%-fullchain}" | tr 'a-z-' 'A-Z_')"
        export "AFN_TLS_${variable}_URL=https://localhost:$port"
        export "AFN_TLS_${variable}_LOG=$TLS_SERVERS_DIR/$name.access.log"
        echo "tls-servers: $name at https://localhost:$port"
    done
}

tls_servers_stop() {
    local pid
    for pid in ${TLS_SERVER_PIDS:-}; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    TLS_SERVER_PIDS=""
    [ -n "${TLS_SERVERS_DIR:-}" ] && rm -rf "$TLS_SERVERS_DIR"
}
