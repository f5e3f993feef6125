# Sourced by the benchmark and test scripts. nginx_start: nginx (Debian's nginx-light) on a free port of 127.0.0.1
# serving a directory. After `nginx_start DIR`, NGINX_URL holds its base URL.
nginx_start() {
    local root="$1" port
    NGINX_DIR="$(mktemp -d)"
    # nginx's workers run as an unprivileged user: the served files must be world-readable.
    chmod -R a+rX "$root"
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    cat >"$NGINX_DIR/nginx.conf" <<CONF
worker_processes 1;
pid $NGINX_DIR/nginx.pid;
error_log $NGINX_DIR/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $NGINX_DIR/body;
    proxy_temp_path $NGINX_DIR/proxy;
    server {
        listen 127.0.0.1:$port;
        root $root;
        client_max_body_size 0;
    }
}
CONF
    nginx -c "$NGINX_DIR/nginx.conf" -p "$NGINX_DIR"
    export NGINX_URL="http://127.0.0.1:$port"
}

nginx_stop() {
    if [ -n "${NGINX_DIR:-}" ] && [ -f "$NGINX_DIR/nginx.pid" ]; then
        kill "$(cat "$NGINX_DIR/nginx.pid")" 2>/dev/null || true
    fi
    [ -n "${NGINX_DIR:-}" ] && rm -rf "$NGINX_DIR"
    NGINX_DIR=""
}

# Sourced by the test script: nginx speaking HTTP/2 in front of the local httpbin
# (AFN_HTTPBIN_URL, started first), over TLS with the fixture localhost certificate (ALPN
# offers h2 and http/1.1) and over cleartext with prior knowledge. After `nginx_h2_start`,
# AFN_H2_URL is https://localhost:PORT, AFN_H2C_URL http://127.0.0.1:PORT, and AFN_H2_LOG the
# access log: per request, nginx's connection serial number, the protocol and the request line.
# Under /fault/ it passes requests on to the fault server (AFN_FAULT_URL, when started first)
# as they arrive and its responses back as they come (full duplex over HTTP/2); /trailers/<n>
# is the fault server's /stream/<n> with the trailer field "X-Checksum: sha256=from-nginx".
nginx_h2_start() {
    local root fixtures tls clear free_port
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    fixtures="$root/Tests/SecurityTests/Fixtures"
    NGINX_H2_DIR="$(mktemp -d)"
    # The workers (an unprivileged user) write request bodies here.
    chmod a+rwx "$NGINX_H2_DIR"
    free_port='import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
    tls="$(python3 -c "$free_port")"
    clear="$(python3 -c "$free_port")"
    cat >"$NGINX_H2_DIR/nginx.conf" <<CONF
worker_processes 1;
pid $NGINX_H2_DIR/nginx.pid;
error_log $NGINX_H2_DIR/error.log;
events { worker_connections 1024; }
http {
    log_format connections '\$connection \$server_protocol "\$request" \$status';
    access_log $NGINX_H2_DIR/access.log connections;
    client_body_temp_path $NGINX_H2_DIR/body;
    proxy_temp_path $NGINX_H2_DIR/proxy;
    server {
        listen 127.0.0.1:$tls ssl http2;
        listen 127.0.0.1:$clear http2;
        ssl_certificate $fixtures/localhost.pem;
        ssl_certificate_key $fixtures/localhost.key;
        client_max_body_size 0;
        location / {
            proxy_pass $AFN_HTTPBIN_URL;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_request_buffering off;
            proxy_buffering off;
        }
        location /fault/ {
            proxy_pass ${AFN_FAULT_URL:-http://127.0.0.1:9}/;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_request_buffering off;
            proxy_buffering off;
        }
        location /trailers/ {
            proxy_pass ${AFN_FAULT_URL:-http://127.0.0.1:9}/stream/;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            add_trailer X-Checksum "sha256=from-nginx";
        }
    }
}
CONF
    if ! nginx -c "$NGINX_H2_DIR/nginx.conf" -p "$NGINX_H2_DIR" 2>"$NGINX_H2_DIR/start.log"; then
        echo "nginx-h2: failed to start" >&2
        cat "$NGINX_H2_DIR/start.log" "$NGINX_H2_DIR/error.log" >&2 || true
        return 1
    fi
    export AFN_H2_URL="https://localhost:$tls" AFN_H2C_URL="http://127.0.0.1:$clear" AFN_H2_LOG="$NGINX_H2_DIR/access.log"
    echo "nginx-h2: HTTP/2 at $AFN_H2_URL and $AFN_H2C_URL"
}

nginx_h2_stop() {
    if [ -n "${NGINX_H2_DIR:-}" ] && [ -f "$NGINX_H2_DIR/nginx.pid" ]; then
        kill "$(cat "$NGINX_H2_DIR/nginx.pid")" 2>/dev/null || true
    fi
    [ -n "${NGINX_H2_DIR:-}" ] && rm -rf "$NGINX_H2_DIR"
    NGINX_H2_DIR=""
}
