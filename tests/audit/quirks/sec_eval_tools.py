"""Tools that run the caller's SQL and code as statements, next to a search tool whose ``query`` is plain text.

``read_query`` executes its ``query`` on an in-memory SQLite database (as the reference SQLite server does);
``run_python`` executes its ``code`` and returns what it printed, so an expression alone shows nothing;
``write_query`` executes its ``query`` too, and carries no annotations (it writes); ``search_notes``, also
without annotations, only looks its ``query`` up as text and echoes it. Every answer comes at once.
"""

from __future__ import annotations

import contextlib
import io
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

DB = sqlite3.connect(":memory:")
DB.execute("CREATE TABLE notes (body TEXT)")
DB.execute("INSERT INTO notes VALUES ('deploy on friday')")
NOTES = ["deploy on friday"]
tiny.TOOLS = [
    {"name": "read_query", "annotations": {"readOnlyHint": True},
     "description": "Execute a SELECT query on the SQLite database and return the rows.",
     "inputSchema": {"type": "object", "properties": {"query": {"type": "string", "description": "SELECT SQL query to execute"}},
                     "required": ["query"]}},
    {"name": "run_python", "annotations": {"readOnlyHint": True},
     "description": "Run a short Python snippet and return what it prints.",
     "inputSchema": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}},
    {"name": "write_query",
     "description": "Execute an INSERT, UPDATE, or DELETE query on the SQLite database.",
     "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
    {"name": "search_notes",
     "description": "Find notes containing a text.",
     "inputSchema": {"type": "object", "properties": {"query": {"type": "string", "description": "Text to look for"}},
                     "required": ["query"]}},
]


def call(name: str, arguments: dict) -> tuple[str, bool]:
    text = str(arguments.get("query", arguments.get("code", "")))
    try:
        if name in ("read_query", "write_query"):
            return repr(DB.execute(text).fetchall()), False
        if name == "run_python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(text, {})  # the hole this fixture stands for
            return out.getvalue(), False
        if name == "search_notes":
            hits = [n for n in NOTES if text in n]
            return "\n".join(hits) or f"no note contains {text!r}", False
    except Exception as exc:  # noqa: BLE001 - every failure is the caller's to read
        return f"{type(exc).__name__}: {exc}", True
    return f"unknown tool {name!r}", True


def result(name: object, arguments: dict) -> dict:
    text, is_error = call(name, arguments)
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


tiny.serve_tools(result)
