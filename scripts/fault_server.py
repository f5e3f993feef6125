#!/usr/bin/env python3
"""The project's fault server (standard library only): responses a hostile or broken server
might send, for the tests of the limits and errors of the managers.

GET /gzip-bomb/<n>   n zero bytes gzip-compressed (about 1,000:1), Content-Encoding: gzip,
                     sent chunked (no Content-Length), compressed as it is sent.
GET /bytes/<n>       n bytes with a Content-Length.
GET /stream/<n>      n bytes sent chunked, without a Content-Length.
GET /invalid-json/0  a body that is not JSON, served as application/json.
Listens on 127.0.0.1 at the port given (0 for a free one) and prints "listening on <port>".
"""
import sys
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK = 64 * 1024
ZEROS = bytes(CHUNK)
PATTERN = bytes(range(256)) * (CHUNK // 256)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _end_chunks(self):
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self):
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

    def _invalid_json(self):
        body = b'{"truncated": [1, 2'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

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


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()
