"""A SQL tool and a code tool, neither annotated read-only, that can read the process environment when asked.

``query`` runs SQL on an in-memory SQLite database that has the ``readfile()`` function of SQLite's fileio
extension (as the sqlite3 shell has; DuckDB's ``read_text`` is the same thing), so
``SELECT readfile('/proc/self/environ')`` returns the server's environment. ``run_code`` executes Python and
returns what it printed. Nothing else the server does shows its environment. ``--no-fileio`` leaves ``readfile``
out (a plain SQLite) and removes ``run_code``: then no request can show the environment.
"""

from __future__ import annotations

import contextlib
import io
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

FILEIO = "--no-fileio" not in sys.argv
DB = sqlite3.connect(":memory:")
if FILEIO:
    DB.create_function("readfile", 1, lambda path: Path(path).read_bytes().decode("utf-8", "replace"))
tiny.TOOLS = [
    {"name": "query", "description": "Execute a SQL query on the analytics database and return the rows.",
     "inputSchema": {"type": "object", "properties": {"query": {"type": "string", "description": "SQL to run"}},
                     "required": ["query"]}},
    {"name": "run_code", "description": "Run a Python snippet and return what it prints.",
     "inputSchema": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}},
]
if not FILEIO:
    tiny.TOOLS = tiny.TOOLS[:1]
original = tiny.answer


def run(name: str, arguments: dict) -> tuple[str, bool]:
    try:
        if name == "query":
            return repr(DB.execute(str(arguments.get("query", ""))).fetchall()), False
        if name == "run_code" and FILEIO:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(str(arguments.get("code", "")), {})  # noqa: S102 - the quirk under test
            return out.getvalue(), False
    except Exception as exc:  # noqa: BLE001 - a refusal the model can read
        return f"{type(exc).__name__}: {exc}", True
    return f"unknown tool {name}", True


def answer(message: dict) -> dict | None:
    if message.get("method") == "tools/call" and "id" in message:
        params = message.get("params") or {}
        text, error = run(str(params.get("name")), params.get("arguments") or {})
        return {"jsonrpc": "2.0", "id": message["id"],
                "result": {"content": [{"type": "text", "text": text}], "isError": error}}
    return original(message)


tiny.answer = answer
tiny.serve()
