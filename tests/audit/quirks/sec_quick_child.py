"""A git-like read-only tool that starts a child by name for a few milliseconds, as mcp-server-git does.

``repo_status(repo_path)`` refuses any path that is not inside the folder given with ``--repository`` or is not
a git repository (it holds no ``.git``), before it starts anything, as real git servers do. Then it runs
``git rev-parse --git-dir`` by name (found on ``PATH``), which ends in a few milliseconds, and says only whether it
worked. By default the child inherits the server's whole environment (no ``env=``); ``--clean`` gives it an
environment built from an allow-list (the server's ``PATH`` and ``LANG``). ``--must-be-repository`` makes it exit
at start when the ``--repository`` folder is not a git repository, as mcp-server-git does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

CLEAN = "--clean" in sys.argv
REPOSITORY = Path(tiny.option("--repository") or ".").resolve()
if "--must-be-repository" in sys.argv and not (REPOSITORY / ".git").exists():
    sys.stderr.write(f"{REPOSITORY} is not a valid Git repository\n")
    sys.exit(0)
tiny.TOOLS = [
    {"name": "repo_status", "annotations": {"readOnlyHint": True},
     "description": "Say whether the git repository at repo_path is in a good state.",
     "inputSchema": {"type": "object", "properties": {"repo_path": {"type": "string"}}, "required": ["repo_path"]}},
]
original = tiny.answer


def status(repo_path: str) -> tuple[str, bool]:
    path = Path(repo_path).resolve()
    if path != REPOSITORY and REPOSITORY not in path.parents:
        return f"{repo_path} is outside the repository {REPOSITORY}", True
    if not (path / ".git").exists():
        return f"{repo_path} is not a git repository", True
    env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"} if CLEAN else None  # None: inherit everything
    done = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=path, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5, check=False)
    return ("clean" if done.returncode == 0 else "git failed"), done.returncode != 0


def answer(message: dict) -> dict | None:
    if message.get("method") == "tools/call" and "id" in message:
        text, error = status(str((message.get("params") or {}).get("arguments", {}).get("repo_path", "")))
        return {"jsonrpc": "2.0", "id": message["id"],
                "result": {"content": [{"type": "text", "text": text}], "isError": error}}
    return original(message)


tiny.answer = answer
tiny.serve()
