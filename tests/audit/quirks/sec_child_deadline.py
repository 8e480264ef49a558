"""A read-only status tool that runs ``true`` (a program started by name, with no timeout argument in its schema).

By default the server waits for the child with a fixed 2 s deadline and kills it when it passes (SEC-006's CORRECT
way). ``--no-deadline`` waits as long as the child runs; ``--abandon`` answers at the deadline and leaves the child
running; ``--no-child`` answers without starting anything.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny  # noqa: E402

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
    proc = subprocess.Popen(["true"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if MODE == "--no-deadline":
        proc.wait()
        return "clean"
    try:
        proc.wait(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        if MODE == "--abandon":
            return "timed out (the check is left running)"
        proc.kill()
        proc.wait()
        return f"timed out after {DEADLINE:g} s; the check was stopped"
    return "clean"


def answer(message: dict) -> dict | None:
    if message.get("method") == "tools/call" and "id" in message:
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": check()}]}}
    return original(message)


tiny.answer = answer
tiny.serve()
