# Sourced by the other scripts: the project's own standard-library servers, each on a free
# port of 127.0.0.1 (the server prints "listening on <port>").
#   bulk_start / bulk_stop     scripts/bulk_server.py, BULK_URL (the benchmarks)
#   fault_start / fault_stop   scripts/fault_server.py, AFN_FAULT_URL (the tests)

# python_server_start NAME SCRIPT: starts SCRIPT, sets NAME_PID, NAME_LOG and prints the URL.
python_server_start() {
    local name="$1" script="$2" log pid port
    log="$(mktemp)"
    python3 "$(dirname "${BASH_SOURCE[0]}")/$script" 0 >"$log" 2>&1 &
    pid=$!
    printf -v "${name}_PID" '%s' "$pid"
    printf -v "${name}_LOG" '%s' "$log"
    for _ in $(seq 1 100); do
        port="$(sed -n 's/^listening on \([0-9]*\)$/\1/p' "$log")"
        if [ -n "$port" ]; then
            PYTHON_SERVER_URL="http://127.0.0.1:$port"
            return 0
        fi
        sleep 0.1
    done
    echo "$script did not start" >&2
    cat "$log" >&2
    return 1
}

# python_server_stop NAME: ends the server started as NAME.
python_server_stop() {
    local pid_var="${1}_PID" log_var="${1}_LOG"
    [ -n "${!pid_var:-}" ] && kill "${!pid_var}" 2>/dev/null || true
    [ -n "${!log_var:-}" ] && rm -f "${!log_var}"
    printf -v "$pid_var" '%s' ""
}

bulk_start() { python_server_start BULK bulk_server.py && export BULK_URL="$PYTHON_SERVER_URL"; }
bulk_stop() { python_server_stop BULK; }
fault_start() {
    python_server_start FAULT fault_server.py && export AFN_FAULT_URL="$PYTHON_SERVER_URL" && echo "fault server: listening at $AFN_FAULT_URL"
}
fault_stop() { python_server_stop FAULT; }
