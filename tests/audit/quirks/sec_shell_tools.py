"""Tools that hand the caller's text to ``sh -c`` under names the program/command vocabulary does not cover.

``run_shell`` runs its ``script`` with ``sh -c``; ``shell_execute`` takes ``command`` as a list of strings
(program first, as some published shell servers do) and joins it into one command line for ``sh -c``. Each
child is bounded by a 2 s timeout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

tiny.TOOLS = [
    {"name": "run_shell", "description": "Run a shell script with sh in the workspace and return its output.",
     "inputSchema": {"type": "object", "properties": {"script": {"type": "string"}}, "required": ["script"]}},
    {"name": "shell_execute", "description": "Execute a command from the allowed list and return its output.",
     "inputSchema": {"type": "object", "properties": {"command": {"type": "array", "items": {"type": "string"}}},
                     "required": ["command"]}},
]


def call(name: str, arguments: dict) -> tuple[str, bool]:
    if name == "run_shell":
        line = str(arguments.get("script", ""))
    elif name == "shell_execute" and isinstance(arguments.get("command"), list):
        line = " ".join(str(part) for part in arguments["command"])
    else:
        return "bad call", True
    try:
        done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=2, env={"PATH": "/usr/bin:/bin"})
    except subprocess.TimeoutExpired:
        return "timed out", True
    return done.stdout + done.stderr, done.returncode != 0


def result(name: object, arguments: dict) -> dict:
    text, is_error = call(name, arguments)
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


tiny.serve_tools(result)
