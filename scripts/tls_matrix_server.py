"""TLS servers for the certificate matrix (Tests/SecurityTests/Fixtures/Matrix).

Usage: tls_matrix_server.py FIXTURES ROWS [LOG]

ROWS is a tab-separated file whose first three columns are a row's name, host and chain (leaf
first, comma-separated names of FIXTURES/NAME.pem; the leaf's key is FIXTURES/LEAF.key), such as
the matrix's own matrix.tsv; lines starting with '#' are skipped. Every row gets a server on a
free port of 127.0.0.1 presenting its chain; weak keys and digests are allowed on this side
(security level 0), since refusing them is the client's job. Prints "NAME PORT" a row, then
"ready". Each connection answers one request with 200 and the row's name as the body. LOG, if
given, gets one line a connection when it ends: the row's name and the number of request bytes
the server received (0 when the client refused the handshake), so that a test can prove no byte
of a request left a client that rejected the chain.
"""

import os
import signal
import socket
import ssl
import sys
import tempfile
import threading

# A parent's dispatch worker thread may have started this process with signals blocked.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
fixtures, rows_path = sys.argv[1], sys.argv[2]
log_path = sys.argv[3] if len(sys.argv) > 3 else None
log_lock = threading.Lock()
scratch = tempfile.mkdtemp()


def record(name, received):
    if not log_path:
        return
    with log_lock, open(log_path, "a") as log:
        log.write(f"{name}\t{received}\n")


def serve_connection(context, connection, name):
    received = 0
    try:
        connection.settimeout(10)
        with context.wrap_socket(connection, server_side=True) as tls:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = tls.recv(65536)
                if not chunk:
                    break
                request += chunk
            received = len(request)
            body = name.encode()
            tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                        + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    except (OSError, ssl.SSLError):
        pass
    finally:
        connection.close()
        record(name, received)


def serve(listener, context, name):
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve_connection, args=(context, connection, name), daemon=True).start()


def context_for(name, chain):
    names = chain.split(",")
    chain_file = os.path.join(scratch, name + ".pem")
    with open(chain_file, "w") as out:
        for certificate in names:
            with open(os.path.join(fixtures, certificate + ".pem")) as source:
                out.write(source.read())
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.set_ciphers("DEFAULT:@SECLEVEL=0")
    context.load_cert_chain(chain_file, os.path.join(fixtures, names[0] + ".key"))
    return context


for line in open(rows_path):
    if line.startswith("#") or not line.strip():
        continue
    name, _host, chain = line.rstrip("\n").split("\t")[:3]
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(name, listener.getsockname()[1])
    threading.Thread(target=serve, args=(listener, context_for(name, chain), name), daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
