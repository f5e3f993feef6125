#!/usr/bin/env python3
"""A local bulk-transfer server for the benchmarks (standard library only).

GET  /bytes/<n>[?rate=<MiB/s>]  n bytes of a repeating pattern, optionally throttled.
POST or PUT to any path         reads the whole body (Content-Length or chunked) and answers
                                {"received": <bytes>} as JSON.
Listens on 127.0.0.1 at the port given (0 for a free one) and prints "listening on <port>".
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

CHUNK = 64 * 1024
PATTERN = bytes(range(256)) * (CHUNK // 256)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The head and the body go out in separate writes: with Nagle's algorithm the body waits
    # for the client's delayed acknowledgement (40 ms a response on a kept-alive connection).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_GET(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if len(parts) != 2 or parts[0] != "bytes" or not parts[1].isdigit():
            self.send_error(404)
            return
        total = int(parts[1])
        rate = float(parse_qs(url.query).get("rate", ["0"])[0]) * 1024 * 1024
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(total))
        self.end_headers()
        sent, start = 0, time.monotonic()
        while sent < total:
            piece = PATTERN[: min(CHUNK, total - sent)]
            self.wfile.write(piece)
            sent += len(piece)
            if rate:
                ahead = sent / rate - (time.monotonic() - start)
                if ahead > 0:
                    time.sleep(ahead)

    def _read_body(self):
        received = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    return received
                remaining = size
                while remaining:
                    remaining -= len(self.rfile.read(min(CHUNK, remaining)))
                received += size
                self.rfile.readline()
        remaining = int(self.headers.get("Content-Length", "0"))
        while remaining:
            data = self.rfile.read(min(CHUNK, remaining))
            if not data:
                break
            received += len(data)
            remaining -= len(data)
        return received

    def do_POST(self):
        body = json.dumps({"received": self._read_body()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_PUT = do_POST


if __name__ == "__main__":
    # A listen backlog for many clients at once (the default, 5, drops their SYNs).
    ThreadingHTTPServer.request_queue_size = 256
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()
