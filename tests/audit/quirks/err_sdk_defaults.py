"""The official Python SDK's answers to protocol faults, which ERR-006's *When to deviate* keeps: an unknown tool
gets an isError result ("Unknown tool: x"), a ``tools/list`` with a cursor it never issued gets the whole list again
(it never pages), and a line that is not JSON gets no answer at all (ERR-007's finding). A missing ``name`` or
non-object ``arguments`` get -32602, or -32603 with ``--internal-for-bad-params``. Otherwise it is the tiny server."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

original = tiny.answer
BAD_PARAMS = -32603 if "--internal-for-bad-params" in sys.argv else -32602


def answer(message: dict) -> dict | None:
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    if message.get("method") == "tools/call" and "id" in message:
        name = params.get("name")
        if not isinstance(name, str) or not isinstance(params.get("arguments", {}), dict):
            return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": BAD_PARAMS, "message": "Invalid request parameters"}}
        if name not in ("echo", "wipe"):
            return {"jsonrpc": "2.0", "id": message["id"],
                    "result": {"content": [{"type": "text", "text": f"Unknown tool: {name}"}], "isError": True}}
    return original(message)


def serve() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue  # no answer to a line that is not JSON
        reply = answer(message) if isinstance(message, dict) else None
        if reply is not None:
            tiny.write(reply)


tiny.answer = answer
serve()
