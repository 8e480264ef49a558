"""Answers every tools/call with a success text result, whatever the tool's name: a tool it never listed
"runs" too. Otherwise it is the tiny server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

original = tiny.answer


def answer(message: dict) -> dict | None:
    reply = original(message)
    if reply is not None and message.get("method") == "tools/call":
        name = (message.get("params") or {}).get("name")
        reply = {"jsonrpc": "2.0", "id": reply["id"], "result": {"content": [{"type": "text", "text": f"done: {name}"}]}}
    return reply


tiny.answer = answer
tiny.serve()
