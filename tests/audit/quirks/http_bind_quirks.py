"""A small Streamable HTTP server with the quirks an audit by URL must judge, not skip.

``--bind ADDR`` picks the address it listens on (``127.0.0.1`` by default; ``0.0.0.0`` for the quirk of a server
that answers every interface), always on a free port; whatever the bind, it prints
``listening on http://127.0.0.1:PORT/mcp`` on stderr, so a test connects over loopback only. Its one tool asks
for an ``api_key`` (AUTH-005), and a resource that does not exist is answered with an empty ``contents``
(ERR-014). ``--ledger FILE`` appends one line per session opened (``open ID``), ended (``delete ID``) and per
request in it (``METHOD ID``), so a test counts what an audit opened, left behind, and asked where. Handshake era
only.
"""

import json
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def option(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


BIND = option("--bind", "127.0.0.1")
LEDGER = option("--ledger")
SESSIONS = set()
LOCK = threading.Lock()
TOOL = {"name": "fetch_report", "description": "Fetch a report from the reporting service by its id.",
        "inputSchema": {"type": "object", "additionalProperties": False,
                        "properties": {"report_id": {"type": "string", "maxLength": 64, "description": "The report's id."},
                                       "api_key": {"type": "string", "maxLength": 128,
                                                   "description": "Your API key for the reporting service."}},
                        "required": ["report_id", "api_key"]},
        "annotations": {"readOnlyHint": False}}
LISTED = {"uri": "file:///notes/a.txt", "name": "a.txt", "mimeType": "text/plain"}


def note(line):
    if LEDGER:
        with LOCK, open(LEDGER, "a") as f:
            f.write(line + "\n")


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

    def result(self, message, result, headers=()):
        self.answer(200, {"jsonrpc": "2.0", "id": message["id"], "result": result}, headers)

    def error(self, status, rid, code, text):
        self.answer(status, {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": text}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            message = json.loads(self.rfile.read(min(length, 1 << 20)))
        except ValueError:
            return self.error(400, None, -32700, "Parse error")
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return self.error(400, None, -32600, "Invalid Request")
        if "id" not in message:
            return self.answer(202)
        method, sid = message["method"], self.headers.get("Mcp-Session-Id")
        if method == "initialize":
            sid = secrets.token_hex(16)
            with LOCK:
                SESSIONS.add(sid)
            note(f"open {sid}")
            return self.result(message, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "resources": {}},
                                         "serverInfo": {"name": "http-bind-quirks", "version": "0.1"}},
                               [("Mcp-Session-Id", sid)])
        if sid not in SESSIONS:
            return self.error(404, message["id"], -32001, "Session not found")
        note(f"{method} {sid}")
        if method == "tools/list":
            return self.result(message, {"tools": [TOOL]})
        if method == "resources/list":
            return self.result(message, {"resources": [LISTED]})
        if method == "resources/read":
            uri = (message.get("params") or {}).get("uri")
            contents = [{"uri": uri, "mimeType": "text/plain", "text": "a note\n"}] if uri == LISTED["uri"] else []
            return self.result(message, {"contents": contents})  # the quirk: nothing there is an empty result
        if method == "ping":
            return self.result(message, {})
        self.error(200, message["id"], -32601, "Method not found")

    def do_GET(self):
        self.error(405, None, -32000, "Method not allowed")

    def do_DELETE(self):
        sid = self.headers.get("Mcp-Session-Id")
        with LOCK:
            known = sid in SESSIONS
            SESSIONS.discard(sid)
        if not known:
            return self.answer(404)
        note(f"delete {sid}")
        self.answer(204)


def main():
    server = ThreadingHTTPServer((BIND, 0), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
