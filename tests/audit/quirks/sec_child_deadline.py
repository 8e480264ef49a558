"""A read-only status tool that runs ``true`` (a program started by name, with no timeout argument in its schema).

By default the server runs the child with ``subprocess.run(..., timeout=2)``, which kills it when the deadline
passes (a fixed internal deadline, as SEC-006 asks of a tool with no timeout argument). ``--no-deadline`` waits as
long as the child runs; ``--abandon`` answers at the deadline and leaves the child running; ``--no-child`` answers
without starting anything.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

MODE = next((a for a in sys.argv[1:] if a.startswith("--")), "--deadline")
DEADLINE = 2.0
tiny.TOOLS = [
    {"name": "repo_status", "annotations": {"readOnlyHint": True},
     "description": "Say whether the repository is clean (runs a quick check program).",
     "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}},
]
original = tiny.answer


def check() -> str:
    """Run the check program the way the mode says; what the tool reports."""
    if MODE == "--no-child":
        return "clean (nothing run)"
    if MODE == "--deadline":
        try:
            subprocess.run(["true"], stdin=subprocess.DEVNULL, capture_output=True, timeout=DEADLINE, check=False)
        except subprocess.TimeoutExpired:
            return f"timed out after {DEADLINE:g} s; the check was stopped"
        return "clean"
    proc = subprocess.Popen(["true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if MODE == "--no-deadline":
        proc.wait()
        return "clean"
    try:  # --abandon
        proc.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        return "timed out (the check is left running)"
    return "clean"


def answer(message: dict) -> dict | None:
    if message.get("method") == "tools/call" and "id" in message:
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": check()}]}}
    return original(message)


tiny.answer = answer
tiny.serve()
