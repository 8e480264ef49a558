"""Answers a tools/call whose arguments do not fit the schema as servers on older releases of the official
TypeScript SDK do: an isError result whose text ends in zod's issue array, the JSON ``ZodError.message`` is
(``--compact`` writes it on one line). Otherwise it is the tiny server."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

original = tiny.answer
INDENT = None if "--compact" in sys.argv else 2


def issues(arguments: dict) -> list[dict]:
    value = arguments.get("path")
    received = "undefined" if value is None else {int: "number", float: "number", bool: "boolean"}.get(type(value), "object")
    message = "Required" if value is None else f"Expected string, received {received}"
    return [{"code": "invalid_type", "expected": "string", "received": received, "path": ["path"], "message": message}]


def answer(message: dict) -> dict | None:
    params = message.get("params") or {}
    arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
    if message.get("method") == "tools/call" and "id" in message and not isinstance(arguments.get("path"), str):
        text = (f"MCP error -32602: Invalid arguments for tool {params.get('name')}: "
                + json.dumps(issues(arguments), indent=INDENT, separators=None if INDENT else (",", ":")))
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": text}], "isError": True}}
    return original(message)


tiny.answer = answer
tiny.serve()
