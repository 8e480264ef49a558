"""Like mcp-server-duckdb on the Python SDK 1.30 (benchmarks/handchecks/mcp-server-duckdb.md), on a raw pipe:

- a line that does not parse gets no answer, only ``notifications/message`` "Internal Server Error", though the
  capabilities have no ``logging`` (OPS-003);
- a ``tools/call`` whose params fail validation (no ``name``) is logged to stderr with pydantic's ``input_value=``
  repr, cut in the middle the way pydantic cuts a long one: the end of an ``api_token`` reaches the log (SEC-008);
- ``prompts/get`` renders any name, an unknown one too, as ``{"description": "No", "messages": []}`` (ERR-015).

``--quiet`` logs nothing and sends no notification: a server that prints nothing of what it is sent.
``--whole`` logs the params whole (the secret in full, as a short one is). Otherwise it is the tiny server."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

QUIET = "--quiet" in sys.argv
WHOLE = "--whole" in sys.argv
original = tiny.answer


def pydantic_repr(value: object) -> str:
    """pydantic's ``input_value`` shows a long repr as its first and last 24 characters around ``...``."""
    text = repr(value)
    return text if WHOLE or len(text) <= 50 else f"{text[:24]}...{text[-24:]}"


def answer(message: dict) -> dict | None:
    method, rid = message.get("method"), message.get("id")
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    if rid is None:
        return None
    if method == "initialize":
        caps = {"tools": {}, "prompts": {}, "resources": {}}
        return {"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25", "capabilities": caps,
                                                         "serverInfo": {"name": "sdk130", "version": "1.30.0"}}}
    if method == "tools/call" and not isinstance(params.get("name"), str):
        if not QUIET:
            print(f"WARNING:root:Failed to validate request: 1 validation error for CallToolRequest\nparams.name\n  "
                  f"Field required [type=missing, input_value={pydantic_repr(params)}, input_type=dict]",
                  file=sys.stderr, flush=True)
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Invalid request parameters", "data": ""}}
    if method == "prompts/list":
        return {"jsonrpc": "2.0", "id": rid, "result": {"prompts": []}}
    if method == "prompts/get":
        return {"jsonrpc": "2.0", "id": rid, "result": {"description": "No", "messages": []}}
    if method in ("resources/list", "resources/templates/list"):
        key = "resources" if method == "resources/list" else "resourceTemplates"
        return {"jsonrpc": "2.0", "id": rid, "result": {key: []}}
    return original(message)


def serve() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            if not QUIET:
                tiny.write({"jsonrpc": "2.0", "method": "notifications/message", "params": {
                    "level": "error", "logger": "mcp.server.exception_handler", "data": "Internal Server Error"}})
            continue
        reply = answer(message) if isinstance(message, dict) else None
        if reply is not None:
            tiny.write(reply)


tiny.answer = answer
serve()
