# Sourced by the test script: two tinyproxy instances (Debian's tinyproxy) on free ports of
# 127.0.0.1, each with its own log, and stops them again. After `proxy_servers_start`,
# AFN_PROXY_OPEN_URL is an open HTTP proxy (plain requests and CONNECT to any port) and
# AFN_PROXY_GUARDED_URL one that requires Basic credentials afn-proxy-user:proxy-secret and
# refuses CONNECT to any port but 443 (403); AFN_PROXY_*_LOG is each one's log, which records
# every request line it received ("Request (file descriptor N): GET http://..."). Beside them,
# AFN_PROXY_SOCKS_URL is a SOCKS5 proxy (Debian's microsocks) requiring the same credentials,
# whose connections to the servers come from 127.0.0.2: a server that sees that address as the
# client was reached through it; and AFN_PROXY_TLS_URL, the open proxy reached over TLS (Debian's
# stunnel in front of it, with the fixture localhost certificate): an HTTPS proxy.

# Waits for a listener on 127.0.0.1:$1; otherwise prints the files after it and fails.
proxy_wait_for_port() {
    local port="$1"
    shift
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "proxy-servers: nothing listens on port $port; output follows" >&2
    cat "$@" >&2 || true
    return 1
}

proxy_servers_start() {
    local name port
    PROXY_SERVERS_DIR="$(mktemp -d)"
    PROXY_SERVER_PIDS=""
    for name in open guarded; do
        port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
        {
            echo "Port $port"
            echo "Listen 127.0.0.1"
            echo "Timeout 30"
            echo "LogFile \"$PROXY_SERVERS_DIR/$name.log\""
            echo "LogLevel Info"
            echo "MaxClients 200"
            echo "Allow 127.0.0.1"
            echo "DisableViaHeader Yes"
            if [ "$name" = guarded ]; then
                echo "BasicAuth afn-proxy-user proxy-secret"
                echo "ConnectPort 443"
            fi
        } >"$PROXY_SERVERS_DIR/$name.conf"
        tinyproxy -d -c "$PROXY_SERVERS_DIR/$name.conf" >"$PROXY_SERVERS_DIR/$name.out" 2>&1 &
        PROXY_SERVER_PIDS="$PROXY_SERVER_PIDS $!"
        proxy_wait_for_port "$port" "$PROXY_SERVERS_DIR/$name.out" "$PROXY_SERVERS_DIR/$name.log" || return 1
        local variable
        variable="$(echo "$name" | tr 'a-z' 'A-Z')"
        export "AFN_PROXY_${variable}_URL=http://127.0.0.1:$port"
        export "AFN_PROXY_${variable}_LOG=$PROXY_SERVERS_DIR/$name.log"
        echo "proxy-servers: $name proxy at http://127.0.0.1:$port"
    done
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    microsocks -i 127.0.0.1 -p "$port" -b 127.0.0.2 -u afn-proxy-user -P proxy-secret >"$PROXY_SERVERS_DIR/socks.out" 2>&1 &
    PROXY_SERVER_PIDS="$PROXY_SERVER_PIDS $!"
    proxy_wait_for_port "$port" "$PROXY_SERVERS_DIR/socks.out" || return 1
    export AFN_PROXY_SOCKS_URL="socks5h://127.0.0.1:$port"
    echo "proxy-servers: SOCKS5 proxy at $AFN_PROXY_SOCKS_URL"
    local fixtures
    fixtures="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/Tests/SecurityTests/Fixtures"
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    cat >"$PROXY_SERVERS_DIR/stunnel.conf" <<CONF
foreground = yes
pid =
[proxy]
accept = 127.0.0.1:$port
connect = ${AFN_PROXY_OPEN_URL#http://}
cert = $fixtures/localhost.pem
key = $fixtures/localhost.key
CONF
    stunnel "$PROXY_SERVERS_DIR/stunnel.conf" >"$PROXY_SERVERS_DIR/stunnel.out" 2>&1 &
    PROXY_SERVER_PIDS="$PROXY_SERVER_PIDS $!"
    proxy_wait_for_port "$port" "$PROXY_SERVERS_DIR/stunnel.out" || return 1
    export AFN_PROXY_TLS_URL="https://localhost:$port"
    echo "proxy-servers: HTTPS proxy at $AFN_PROXY_TLS_URL"
}

proxy_servers_stop() {
    local pid
    for pid in ${PROXY_SERVER_PIDS:-}; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    PROXY_SERVER_PIDS=""
    [ -n "${PROXY_SERVERS_DIR:-}" ] && rm -rf "$PROXY_SERVERS_DIR"
}
