#!/usr/bin/env python3
"""The project's fault server (standard library only): responses a hostile or broken server
might send, for the tests of the limits and errors of the managers.

GET /gzip-bomb/<n>   n zero bytes gzip-compressed (about 1,000:1), Content-Encoding: gzip,
                     sent chunked (no Content-Length), compressed as it is sent.
GET /bytes/<n>       n bytes with a Content-Length.
GET /stream/<n>      n bytes sent chunked, without a Content-Length.
GET /invalid-json/0  a body that is not JSON, served as application/json.
GET /stall/<ms>      the head and the first of 2 body bytes, then nothing for ms, then the second.
GET /short-body/<n>  declares n body bytes, sends half, closes the connection.
GET /reset-body/<n>  declares n body bytes, sends half, resets the connection (RST).
GET /reset-early/0   resets the connection before any byte of a response.
GET /reset-headers/0 half a status line and header, then resets the connection.
GET /idle-close/<ms> a 200 with the body "ok" on a kept-alive connection, which the server closes
                     when no next request comes within ms.
GET /seq/<id>?s=STEPS  answers the k-th request to /seq/<id> with the k-th of the comma-separated
                     STEPS (the last repeats): a status ("503"), a status with a Retry-After in
                     seconds ("503:1") or as an HTTP date ("503:date1"), or "reset" (the
                     connection reset before any byte). A 2xx answers {"attempt": k}; others
                     {"error": status}. Any method.
GET /token/<id>      a new bearer token for <id> (the older ones stop working), as text, after
                     ?delay=ms.
GET /protected/<id>  200 with {"ok": true} for "Authorization: Bearer <current token of id>",
                     401 with WWW-Authenticate: Bearer otherwise.
GET /cut/<n>?id=<id> a resource of n bytes with an ETag and Accept-Ranges: without Range, the
                     head and 40% of the body, then a reset; with "Range: bytes=k-", 206 and the
                     rest (unless ?ranges=0: then always the cut whole).
GET /log/<id>        the requests made to <id> as JSON: method, path, and the Range,
                     Authorization and Idempotency-Key headers, with the time in seconds.
GET /raw/0?r=BYTES[&delay=ms][&pad=n]  after ms, the bytes BYTES (URL-safe base64) as they are,
                     with "{pad}" replaced by n letters a, then a close: any status line, header
                     or framing a test needs.
GET /once-per-connection/0  200 with the body "ok" on a kept-alive connection; any later request
                     on the same connection is read and answered by a close (a keep-alive race
                     lost every time). Any method.
GET /extra-after-204/<ms>  a 204 on a kept-alive connection and, ms later, an unsolicited
                     200 with the body "STALE" on it (the next request must not take it).
HEAD /head-with-body/0  a 200 declaring 5 bytes, and the 5 bytes "STALE" after it, which a HEAD
                     response must not carry; the connection stays open.
GET /events/<n>      server-sent events 1 to n (`id: k`, `data: {"n": k}`), 50 ms apart, at most 3
                     a connection (then the response ends, for the client to reconnect), each
                     connection opening with `retry: 100` and going on after its Last-Event-ID;
                     204 once every event was sent.
GET /jsonl/<n>       n JSON Lines records {"id": k, "name": "user-k", "score": k % 100}, chunked.
GET /trailers/<n>     n bytes sent chunked, then the trailer fields "Checksum: sha256=<hex of the
                     body>" and "X-Count: n" (announced by a Trailer header).
POST /duplex/0       full duplex echo: the head at once (200, chunked), then each piece of the
                     request body sent back as it is read (chunked, or a Content-Length read a
                     piece at a time), then the trailer "X-Received-Bytes: <count>" and, for
                     each trailer field of the request, "X-Echo-<name>: <value>". Any method
                     with a body.
POST /duplex/<n>     (n > 0) the same, but the response ends (its last chunk and the trailer
                     "X-Received-Bytes: <count>") once n pieces were echoed, while the request
                     body may still be open; the rest of the body is read and dropped.
Listens on 127.0.0.1 at the port given (0 for a free one) and prints "listening on <port>".
"""
import base64
import email.utils
import hashlib
import json
import socket
import struct
import threading
import sys
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = 64 * 1024
ZEROS = bytes(CHUNK)
PATTERN = bytes(range(256)) * (CHUNK // 256)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The head and the body go out in separate writes: with Nagle's algorithm the body waits
    # for the client's delayed acknowledgement (40 ms a response on a kept-alive connection).
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def _chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _end_chunks(self):
        self.wfile.write(b"0\r\n\r\n")

    def _record(self, key):
        with LOCK:
            LOG.setdefault(key, []).append({
                "method": self.command, "path": self.path, "time": time.time(),
                "range": self.headers.get("Range"), "authorization": self.headers.get("Authorization"),
                "idempotency_key": self.headers.get("Idempotency-Key"),
            })
            kind = self.path.split("/")[1]
            return sum(1 for entry in LOG[key] if entry["path"].split("/")[1] == kind)

    def _json(self, status, value, extra=()):
        body = json.dumps(value).encode()
        self.send_response(status)
        for name, header in extra:
            self.send_header(name, header)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _reset(self):
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True

    def _scripted(self, kind, key, query):
        """The scripted kinds: sequences, tokens, cut resources and the request log."""
        if kind == "log":
            with LOCK:
                entries = list(LOG.get(key, []))
            self._json(200, entries)
        elif kind == "seq":
            count = self._record(key)
            steps = query.get("s", ["200"])[0].split(",")
            step = steps[min(count, len(steps)) - 1]
            if step == "reset":
                self._reset()
                return
            status, _, after = step.partition(":")
            extra = []
            if after.startswith("date"):
                extra.append(("Retry-After", email.utils.formatdate(time.time() + int(after[4:]), usegmt=True)))
            elif after:
                extra.append(("Retry-After", after))
            status = int(status)
            self._json(status, {"attempt": count} if status < 300 else {"error": status}, extra)
        elif kind == "token":
            time.sleep(int(query.get("delay", ["0"])[0]) / 1000)
            self._record(key)
            with LOCK:
                TOKENS[key] = TOKENS.get(key, 0) + 1
                token = "t%d" % TOKENS[key]
            self._text(token.encode())
        elif kind == "protected":
            self._record(key)
            with LOCK:
                expected = "Bearer t%d" % TOKENS[key] if key in TOKENS else None
            if expected is not None and self.headers.get("Authorization") == expected:
                self._json(200, {"ok": True})
            else:
                self._json(401, {"error": 401}, [("WWW-Authenticate", 'Bearer realm="fault"')])
        elif kind == "cut":
            self._cut(int(key), query.get("id", ["0"])[0], query.get("ranges", ["1"])[0] != "0")

    def _cut(self, total, key, ranges):
        self._record(key)
        requested = self.headers.get("Range", "") if ranges else ""
        body = (PATTERN * (total // len(PATTERN) + 1))[:total]
        if requested.startswith("bytes=") and requested.endswith("-") and requested[6:-1].isdigit():
            start = int(requested[6:-1])
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, total - 1, total))
            self.send_header("Content-Length", str(total - start))
            self.send_header("ETag", '"cut-v1"')
            self.end_headers()
            self.wfile.write(body[start:])
            return
        self.send_response(200)
        self.send_header("Content-Length", str(total))
        self.send_header("ETag", '"cut-v1"')
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        self.wfile.write(body[: total * 2 // 5])
        self._reset()

    def do_POST(self):
        if self.path.partition("?")[0].startswith("/duplex/"):
            try:
                self._duplex(int(self.path.partition("?")[0].rsplit("/", 1)[1] or 0))
            except (BrokenPipeError, ConnectionResetError, ValueError):
                self.close_connection = True
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.do_GET()

    def do_HEAD(self):
        if self.path != "/head-with-body/0":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"STALE")
        self.wfile.flush()

    do_PUT = do_POST
    do_PATCH = do_POST
    do_DELETE = do_POST

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path == "/raw/0":
            fields = urllib.parse.parse_qs(query)
            time.sleep(int(fields.get("delay", ["0"])[0]) / 1000)
            raw = base64.urlsafe_b64decode(fields.get("r", [""])[0])
            self.wfile.write(raw.replace(b"{pad}", b"a" * int(fields.get("pad", ["0"])[0])))
            self.wfile.flush()
            self.close_connection = True
            return
        if path.startswith("/extra-after-204/"):
            self.send_response(204)
            self.end_headers()
            self.wfile.flush()
            time.sleep(int(path.rsplit("/", 1)[1]) / 1000)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nSTALE")
            self.wfile.flush()
            return
        if path == "/once-per-connection/0":
            if getattr(self, "served_once", False):
                self.close_connection = True
                return
            self.served_once = True
            self._text(b"ok")
            return
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[0] in SCRIPTED and parts[1].isdigit():
            try:
                self._scripted(parts[0], parts[1], urllib.parse.parse_qs(query))
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            return
        parts = self.path.strip("/").split("/")
        if len(parts) != 2 or not parts[1].isdigit():
            self.send_error(404)
            return
        kind, total = parts[0], int(parts[1])
        try:
            if kind == "gzip-bomb":
                self._gzip_bomb(total)
            elif kind == "bytes":
                self._bytes(total)
            elif kind == "stream":
                self._stream(total)
            elif kind == "invalid-json":
                self._invalid_json()
            elif kind == "stall":
                self._stall(total / 1000)
            elif kind in RAW:
                self.wfile.write(RAW[kind](total))
                self.wfile.flush()
                if kind in RESETS:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
            elif kind == "idle-close":
                self._text(b"ok")
                self.connection.settimeout(total / 1000)
            elif kind == "events":
                self._events(total)
            elif kind == "jsonl":
                self._jsonl(total)
            elif kind == "trailers":
                self._trailers(total)
            else:
                self.send_error(404)
        except (BrokenPipeError, ConnectionResetError):
            # The client stopped reading: what a limit is for.
            self.close_connection = True

    def _gzip_bomb(self, total):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
        sent = 0
        while sent < total:
            piece = ZEROS[: min(CHUNK, total - sent)]
            self._chunk(compressor.compress(piece))
            sent += len(piece)
        self._chunk(compressor.flush())
        self._end_chunks()

    def _bytes(self, total):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(total))
        self.end_headers()
        sent = 0
        while sent < total:
            piece = PATTERN[: min(CHUNK, total - sent)]
            self.wfile.write(piece)
            sent += len(piece)

    def _text(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _stall(self, seconds):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"a")
        self.wfile.flush()
        time.sleep(seconds)
        self.wfile.write(b"b")

    def _invalid_json(self):
        body = b'{"truncated": [1, 2'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _events(self, total):
        last = int(self.headers.get("Last-Event-ID") or 0)
        if last >= total:
            self.send_response(204)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._chunk(b"retry: 100\n\n")
        for event in range(last + 1, min(last + 3, total) + 1):
            time.sleep(0.05)
            self._chunk(b'id: %d\ndata: {"n": %d}\n\n' % (event, event))
            self.wfile.flush()
        self._end_chunks()

    def _jsonl(self, total):
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        lines = []
        for record in range(1, total + 1):
            lines.append(b'{"id": %d, "name": "user-%d", "score": %d}\n' % (record, record, record % 100))
            if len(lines) == 500 or record == total:
                self._chunk(b"".join(lines))
                lines = []
        self._end_chunks()

    def _trailers(self, total):
        body = b"t" * total
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Trailer", "Checksum, X-Count")
        self.end_headers()
        for start in range(0, total, CHUNK):
            self._chunk(body[start:start + CHUNK])
        digest = hashlib.sha256(body).hexdigest()
        self.wfile.write(b"0\r\nChecksum: sha256=%s\r\nX-Count: %d\r\n\r\n" % (digest.encode(), total))

    def _duplex(self, pieces):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        received = 0
        echoed = 0
        trailers = []
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    break
                piece = self.rfile.read(size)
                self.rfile.readline()
                received += len(piece)
                if pieces and echoed == pieces:
                    continue
                self._chunk(piece)
                echoed += 1
                if echoed == pieces:
                    # The response ends here; the request body goes on.
                    self.wfile.write(b"0\r\nX-Received-Bytes: %d\r\n\r\n" % received)
                    self.wfile.flush()
            while True:
                line = self.rfile.readline().rstrip(b"\r\n")
                if not line:
                    break
                name, _, value = line.partition(b":")
                trailers.append((name.strip(), value.strip()))
        else:
            left = int(self.headers.get("Content-Length") or 0)
            while left:
                piece = self.rfile.read1(min(left, CHUNK))
                if not piece:
                    break
                left -= len(piece)
                received += len(piece)
                self._chunk(piece)
        if pieces and echoed == pieces:
            return
        fields = b"".join(b"X-Echo-%s: %s\r\n" % field for field in trailers)
        self.wfile.write(b"0\r\nX-Received-Bytes: %d\r\n%s\r\n" % (received, fields))

    def _stream(self, total):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = 0
        while sent < total:
            piece = PATTERN[: min(CHUNK, total - sent)]
            self._chunk(piece)
            sent += len(piece)
        self._end_chunks()


# Responses written as raw bytes, by path kind, from the number in the path.
RAW = {
    "short-body": lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % n + b"s" * (n // 2),
    "reset-body": lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % n + b"r" * (n // 2),
    "reset-early": lambda _: b"",
    "reset-headers": lambda _: b"HTTP/1.1 200 OK\r\nContent-Le",
}
# The kinds answered by `_scripted`, and their shared state: the requests seen per id, and the
# current token number per id.
SCRIPTED = {"log", "seq", "token", "protected", "cut"}
LOCK = threading.Lock()
LOG = {}
TOKENS = {}

# The RAW kinds that end with a reset (RST) rather than a close.
RESETS = {"reset-body", "reset-early", "reset-headers"}


if __name__ == "__main__":
    # A listen backlog for many clients at once (the default, 5, drops their SYNs).
    ThreadingHTTPServer.request_queue_size = 256
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()
