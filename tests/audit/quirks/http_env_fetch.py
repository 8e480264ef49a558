"""A small Streamable HTTP server with the two defects server-everything shows over HTTP: a read-only ``get_env``
that returns ``JSON.stringify(process.env)``'s Python twin, and a read-only ``fetch_page`` that fetches any URL and
follows redirects (``urllib``'s default opener), with no address check.

``--clean``: ``get_env`` answers only the fixed, non-secret names a minimal child environment holds (PATH, HOME,
LANG), and ``fetch_page`` refuses every URL whose host is loopback, private or link-local, and does not follow
redirects. It listens on 127.0.0.1 only (a free port) and prints ``listening on http://127.0.0.1:PORT/mcp`` on
stderr. Handshake era only.
"""

import ipaddress
import json
import os
import secrets
import socket
import sys
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

CLEAN = "--clean" in sys.argv
TOOLS = [
    {"name": "get_env", "description": "Return the server's environment variables, for debugging.",
     "annotations": {"readOnlyHint": True}, "inputSchema": {"type": "object", "properties": {}}},
    {"name": "fetch_page", "description": "Fetch a web page and return its text.", "annotations": {"readOnlyHint": True},
     "inputSchema": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"]}},
]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def internal(host):
    """True when any address the host resolves to is not public."""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return True
    return any(not ipaddress.ip_address(info[4][0].split("%")[0]).is_global for info in infos)


def get_env(_args):
    if CLEAN:
        return json.dumps({k: os.environ.get(k, "") for k in ("PATH", "HOME", "LANG")}), False
    return json.dumps(dict(os.environ)), False


def fetch_page(args):
    url = str(args.get("url", ""))
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"refused: only http(s) URLs are fetched, not {url!r}", True
    if CLEAN and internal(parts.hostname):
        return f"refused: {parts.hostname} is not a public address", True
    opener = urllib.request.build_opener(NoRedirect) if CLEAN else urllib.request.build_opener()
    try:
        with opener.open(url, timeout=5) as page:
            return page.read(65536).decode("utf-8", "replace"), False
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return f"fetch failed: {exc}", True


CALLS = {"get_env": get_env, "fetch_page": fetch_page}


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

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            message = json.loads(self.rfile.read(min(length, 1 << 20)))
        except ValueError:
            return self.answer(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
        if not isinstance(message, dict) or "id" not in message:
            return self.answer(202)
        rid, method, params = message["id"], message.get("method"), message.get("params") or {}
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "http-env-fetch", "version": "0.1"}}
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "result": result},
                               [("Mcp-Session-Id", secrets.token_urlsafe(24))])
        if method == "ping":
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "result": {}})
        if method == "tools/list":
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        if method == "tools/call" and params.get("name") in CALLS:
            text, error = CALLS[params["name"]](params.get("arguments") or {})
            result = {"content": [{"type": "text", "text": text}], "isError": error}
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "result": result})
        if method == "tools/call":
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Unknown tool"}})
        self.answer(200, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})

    def do_DELETE(self):
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
