"""Answers a tools/call without a name, or with arguments that are not an object, as servers on the TypeScript SDK
do (mcp-server-sequential-thinking, 2026): JSON-RPC error -32603 whose message is zod's issue list as pretty JSON.
``--in-data`` sends a short message and the issue list as structured ``data``; ``--clean`` a message written for the
client ("Invalid params: name must be a string"), which ERR-010 passes. Otherwise it is the tiny server."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

original = tiny.answer


def issues(params: dict) -> list[dict]:
    if not isinstance(params.get("name"), str):
        return [{"expected": "string", "code": "invalid_type", "path": ["params", "name"],
                 "message": "Invalid input: expected string, received undefined"}]
    return [{"expected": "record", "code": "invalid_type", "path": ["params", "arguments"],
             "message": "Invalid input: expected record, received string"}]


def answer(message: dict) -> dict | None:
    params = message.get("params") if isinstance(message.get("params"), dict) else {}
    bad = not isinstance(params.get("name"), str) or not isinstance(params.get("arguments", {}), dict)
    if message.get("method") == "tools/call" and "id" in message and bad:
        if "--clean" in sys.argv:
            error = {"code": -32602, "message": "Invalid params: name must be a string and arguments an object"}
        elif "--in-data" in sys.argv:
            error = {"code": -32602, "message": "Invalid params", "data": issues(params)}
        else:
            error = {"code": -32603, "message": json.dumps(issues(params), indent=2)}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return original(message)


tiny.answer = answer
tiny.serve()
