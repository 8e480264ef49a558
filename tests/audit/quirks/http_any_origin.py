"""A small Streamable HTTP server that checks ``Host`` but not ``Origin`` properly: the quirk of a server whose
authors turned the Origin check off to make a browser client work.

``--mode any-origin`` (default) serves a request whatever its ``Origin``; ``--mode wrong-status`` refuses a foreign
``Origin`` with 400 instead of the 403 the specification names. It listens on 127.0.0.1 only (a free port) and
prints ``listening on http://127.0.0.1:PORT/mcp`` on stderr, as the reference server does. Handshake era only:
``initialize`` (with a random ``Mcp-Session-Id``), ``tools/list`` (no tools), notifications 202, DELETE 204.
"""

import json
import secrets
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "any-origin"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, headers=()):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def refused(self, status, text):
        self.answer(status, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": text}})

    def checked(self):
        port = self.server.server_address[1]
        if self.headers.get("Host", "").lower() not in {f"127.0.0.1:{port}", f"localhost:{port}"}:
            self.refused(421, "Host not allowed")
            return False
        origin = self.headers.get("Origin")
        if MODE == "wrong-status" and origin is not None and origin.lower() != f"http://127.0.0.1:{port}":
            self.refused(400, "Origin not allowed")
            return False
        return True  # any-origin: the Origin header is never looked at

    def do_POST(self):
        if not self.checked():
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            message = json.loads(self.rfile.read(min(length, 1 << 20)))
        except ValueError:
            return self.answer(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
        if not isinstance(message, dict) or "id" not in message:
            return self.answer(202)
        method = message.get("method")
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "http-any-origin", "version": "0.1"}}
            return self.answer(200, {"jsonrpc": "2.0", "id": message["id"], "result": result},
                               [("Mcp-Session-Id", secrets.token_urlsafe(24))])
        if method == "tools/list":
            return self.answer(200, {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}})
        self.answer(404, {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "Method not found"}})

    def do_DELETE(self):
        if self.checked():
            self.answer(204)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
