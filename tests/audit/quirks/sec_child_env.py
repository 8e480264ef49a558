"""A read-only report tool that starts a child (``sleep 1``) and prints nothing of it.

By default the child inherits the server's whole environment (``subprocess.run`` without ``env=``), which a
probe can only see from outside, in ``/proc/<pid>/environ``. ``--clean`` gives the child an environment
built from an allow-list instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

CLEAN = "--clean" in sys.argv
tiny.TOOLS = [
    {"name": "run_report", "annotations": {"readOnlyHint": True},
     "description": "Build the nightly report (about 1 second) and say when it is ready.",
     "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}},
]
original = tiny.answer


def answer(message: dict) -> dict | None:
    if message.get("method") == "tools/call" and "id" in message:
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"} if CLEAN else None  # None: inherit everything
        subprocess.run(["sleep", "1"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=5, check=False)
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"content": [{"type": "text", "text": "report ready"}]}}
    return original(message)


tiny.answer = answer
tiny.serve()
