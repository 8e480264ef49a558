"""A Streamable HTTP server with an honest, long tool list: 74 tools, listed in one reply of about 114 KB (a real
server lists 74 tools in 109 KB; an auditor that read only 64 KiB of a reply took that for no answer at all).

It checks ``Host`` and ``Origin``, hands out random session ids, and answers ``initialize``, ``ping``, ``tools/list``
and ``tools/call`` (every tool echoes ``ok``); 127.0.0.1 only, a free port, ``listening on URL`` on stderr.
``--deep`` answers ``tools/list`` instead with a result nested 200,000 arrays deep.
"""

import json
import secrets
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEEP = "--deep" in sys.argv
COUNT = 74


def tool(i: int) -> dict:
    words = ("Reads one record of the inventory ledger by its id and returns it as JSON, with its history. Use it to "
             "check a record before changing it; do not use it to search (list_records does that). It writes "
             "nothing and calls no other service. ")
    props = {
        f"field_{j}": {"type": "string", "maxLength": 64, "description": f"Field {j} of the record, as text "
                       f"(for example 'value-{j}'); empty means leave it out.", "default": ""}
        for j in range(5)
    }
    props["record_id"] = {"type": "string", "maxLength": 32, "pattern": "^[a-z0-9-]+$",
                          "description": "The record's id, lower-case letters, digits and hyphens (for example 'r-42')."}
    return {
        "name": f"read_record_{i:02d}", "title": f"Read inventory record (ledger {i})",
        "description": words,
        "annotations": {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
        "inputSchema": {"type": "object", "properties": props, "required": ["record_id"], "additionalProperties": False},
    }


TOOLS = [tool(i) for i in range(COUNT)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=None, headers=(), raw=None):
        data = raw if raw is not None else json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def checked(self):
        port = self.server.server_address[1]
        allowed = {f"127.0.0.1:{port}", f"localhost:{port}"}
        if self.headers.get("Host", "").lower() not in allowed:
            self.answer(421, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Host not allowed"}})
            return False
        origin = self.headers.get("Origin")
        if origin is not None and origin.lower().removeprefix("http://") not in allowed:
            self.answer(403, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Origin not allowed"}})
            return False
        return True

    def do_POST(self):
        if not self.checked():
            return
        length = int(self.headers.get("Content-Length") or 0)
        try:
            message = json.loads(self.rfile.read(min(length, 1 << 20)))
        except ValueError:
            return self.answer(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return self.answer(400, {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}})
        if "id" not in message:
            return self.answer(202)
        rid, method = message["id"], message["method"]
        if method == "initialize":
            result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "http-many-tools", "version": "0.1"}}
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "result": result},
                               [("Mcp-Session-Id", secrets.token_hex(16))])
        if method == "tools/list" and DEEP:
            raw = ('{"jsonrpc":"2.0","id":' + json.dumps(rid) + ',"result":{"tools":' + "[" * 200_000 + "]" * 200_000
                   + "}}").encode()
            return self.answer(200, raw=raw)
        if method == "ping":
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "result": {}})
        if method == "tools/list":
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        if method == "tools/call":
            name = (message.get("params") or {}).get("name")
            if not any(t["name"] == name for t in TOOLS):
                return self.answer(200, {"jsonrpc": "2.0", "id": rid,
                                         "error": {"code": -32602, "message": f"Unknown tool: {name}"}})
            return self.answer(200, {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "ok"}]}})
        self.answer(200, {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})

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
