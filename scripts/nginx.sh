# Sourced by the benchmark scripts: nginx (Debian's nginx-light) on a free port of 127.0.0.1
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
