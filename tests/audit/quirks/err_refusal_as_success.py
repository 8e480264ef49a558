"""A read-only ``echo`` tool that answers a path it cannot open with a success result (no ``isError``), as several
real servers do. ``--text refusal`` (default): the text plainly says it failed ("Error: ENOENT: no such file or
directory, open '...'"), which ERR-002 must FAIL. ``--text report``: the tool's ordinary output, which mentions
errors without being one ("Scanned 0 lines: 0 errors, 0 warnings"), which ERR-002 must not read as a failure.
Protocol 2025-06-18, so no invalid-arguments case is asked. Otherwise it is the tiny server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

TEXT = tiny.option("--text") or "refusal"


def call(name: object, arguments: dict) -> dict:
    path = str(arguments.get("path"))
    text = (f"Error: ENOENT: no such file or directory, open '{path}'" if TEXT == "refusal"
            else f"Scanned 0 lines of {path}: 0 errors, 0 warnings")
    return {"content": [{"type": "text", "text": text}]}


tiny.TOOLS = [t for t in tiny.TOOLS if t["name"] == "echo"]
original = tiny.answer


def older(message: dict) -> dict | None:
    reply = original(message)
    if message.get("method") == "initialize" and reply is not None:
        reply["result"]["protocolVersion"] = "2025-06-18"
    return reply


tiny.answer = older
tiny.serve_tools(call)
