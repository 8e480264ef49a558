"""A tiny, mostly correct stdio MCP server the hostile scripts are built from.

Tools: ``echo`` (read-only, takes ``path``) and ``wipe`` (destructive, takes
``path``): calling ``wipe`` writes the file named by ``--tripwire``, so a test
can prove the auditor never called it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

TOOLS = [
    {"name": "echo", "description": "Echo the path back.", "annotations": {"readOnlyHint": True},
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "wipe", "description": "Delete everything under path.", "annotations": {"readOnlyHint": False, "destructiveHint": True},
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
]


def option(name: str) -> str | None:
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else None


def record_pid(pid: int) -> None:
    """Append a pid to the --pidfile, so a test can check every process was reaped."""
    path = option("--pidfile")
    if path:
        with open(path, "a") as f:
            f.write(f"{pid}\n")


def answer(message: dict) -> dict | None:
    method, rid = message.get("method"), message.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "tiny", "version": "0"}}
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        name = (message.get("params") or {}).get("name")
        if name == "wipe" and option("--tripwire"):
            with open(option("--tripwire"), "w") as f:
                f.write("the auditor called a destructive tool\n")
        result = {"content": [{"type": "text", "text": "ok"}], "isError": name not in ("echo", "wipe")}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def write(message: dict, *, pad: int = 0) -> None:
    if pad:
        message = {**message, "_pad": "x" * pad}
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(*, pad: int = 0) -> None:
    """Answer line by line until stdin closes."""
    record_pid(os.getpid())
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            write({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
            continue
        reply = answer(message) if isinstance(message, dict) else None
        if reply is not None:
            write(reply, pad=pad)


def serve_tools(call: Callable[[object, dict], dict]) -> None:
    """Serve with ``call(tool name, arguments)`` giving the result of every ``tools/call``; the rest as above."""
    plain = answer

    def routed(message: dict) -> dict | None:
        if message.get("method") != "tools/call" or "id" not in message:
            return plain(message)
        params = message.get("params") or {}
        arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        return {"jsonrpc": "2.0", "id": message["id"], "result": call(params.get("name"), arguments)}

    globals()["answer"] = routed
    serve()


if __name__ == "__main__":
    serve()
