"""Names its tools in one convention other than the house style, as many servers built on the TypeScript SDK do.

``--style camel`` (the default) lists ``getFile``, ``listFiles``, ``searchFiles``; ``--style kebab`` the same
names in kebab-case; ``--style mixed`` mixes camelCase, snake_case and kebab-case on one server.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

STYLES = {
    "camel": ("getFile", "listFiles", "searchFiles"),
    "kebab": ("get-file", "list-files", "search-files"),
    "mixed": ("getFile", "list_files", "search-files"),
}
style = tiny.option("--style") or "camel"
tiny.TOOLS = [
    {"name": name, "description": f"{name}: read-only access to the workspace files.",
     "annotations": {"readOnlyHint": True},
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
    for name in STYLES[style]
]
original = tiny.answer


def answer(message: dict) -> dict | None:
    reply = original(message)
    if reply is not None and message.get("method") == "tools/call":
        called = (message.get("params") or {}).get("name")
        reply["result"]["isError"] = called not in STYLES[style]
    return reply


tiny.answer = answer
tiny.serve()
