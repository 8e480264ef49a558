"""A file server whose structured tool result is conforming, with only plain text beside it, as
@modelcontextprotocol/server-filesystem 2026.8.31 answers ``read_multiple_files``.

``read_multiple_files`` declares ``outputSchema`` ``{content: string}`` and returns ``structuredContent``
``{"content": "..."}`` that validates against it, next to a text block holding the same string as plain
text, not the object as JSON: the specification's MUST is kept, its SHOULD (mirror the JSON as text) is not.

``--mode slow`` lists first ``rebuild_index``, a read-only tool with an ``outputSchema`` that sleeps
``SLOW_SECONDS`` before answering (slow by design); ``--mode slow-only`` lists that tool alone. The server
answers one request at a time, like a stdio server on an SDK without concurrency; stdin's end stops it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

SLOW_SECONDS = 8.0
MODE = tiny.option("--mode") or "plain"

READ_MANY = {
    "name": "read_multiple_files", "title": "Read Multiple Files",
    "description": "Read the contents of multiple files simultaneously. Each file's content is returned with its "
                   "path as a reference. Failed reads for individual files won't stop the entire operation.",
    "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                                                               "description": "Array of file paths to read."}},
                    "required": ["paths"], "additionalProperties": False},
    "outputSchema": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"],
                     "additionalProperties": False},
}
SLOW = {
    "name": "rebuild_index", "title": "Rebuild the index",
    "description": "Rebuild the workspace index and report how many files it holds. Takes a few seconds.",
    "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
    "outputSchema": {"type": "object", "properties": {"files": {"type": "integer"}}, "required": ["files"]},
}
tiny.TOOLS = {"plain": [READ_MANY], "slow": [SLOW, READ_MANY], "slow-only": [SLOW]}[MODE]


def _read_many(paths: list) -> str:
    parts = []
    for path in paths:
        try:
            parts.append(f"{path}:\n{Path(str(path)).read_text()}\n")
        except (OSError, UnicodeError) as exc:
            parts.append(f"{path}: Error - {exc}")
    return "\n---\n".join(parts)


def call(name: str, arguments: dict) -> dict:
    if name == "read_multiple_files" and isinstance(arguments.get("paths"), list):
        text = _read_many(arguments["paths"])
        return {"content": [{"type": "text", "text": text}], "structuredContent": {"content": text}}
    if name == "rebuild_index" and any(t["name"] == name for t in tiny.TOOLS):
        time.sleep(SLOW_SECONDS)
        return {"content": [{"type": "text", "text": '{"files": 0}'}], "structuredContent": {"files": 0}}
    return {"content": [{"type": "text", "text": f"Unknown tool or bad arguments: {name}"}], "isError": True}


tiny.serve_tools(call)
