"""A file server whose root comes from its arguments (``--dir DIR``), not from the folder it was started in.

Like the official filesystem server: a read-only ``read_file`` that resolves a path against DIR and refuses
anything that lands outside it. An auditor that assumed the root is the working directory would plant its
test files where this server never looks.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

ROOT = Path(tiny.option("--dir") or ".").resolve()
tiny.TOOLS = [{
    "name": "read_file", "description": "Read a UTF-8 text file inside the served folder.",
    "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "relative to the folder"}},
                    "required": ["path"]},
}]
original = tiny.answer


def read(path: str) -> dict:
    try:
        if "\x00" in path or len(path) > 4096:
            raise PermissionError("refused: NUL byte or too long")
        full = (ROOT / path).resolve()
        if not full.is_relative_to(ROOT):
            raise PermissionError(f"refused: {path!r} is outside the served folder")
        if "--repository-only" in sys.argv and full != ROOT:  # like mcp-server-git's repo_path: the repository or nothing
            raise PermissionError(f"refused: {path!r} is not a git repository")
        if full.is_dir():
            text = "\n".join(sorted(os.listdir(full)))
        elif not full.is_file():  # a FIFO or a device would block the read (SEC-015)
            raise PermissionError(f"refused: {path!r} is not a regular file")
        else:
            text = full.read_text(encoding="utf-8", errors="replace")
        return {"content": [{"type": "text", "text": text}]}
    except (OSError, ValueError) as exc:
        return {"content": [{"type": "text", "text": f"error: {exc}"}], "isError": True}


def answer(message: dict) -> dict | None:
    params = message.get("params") or {}
    if message.get("method") == "tools/call" and params.get("name") == "read_file":
        path = (params.get("arguments") or {}).get("path")
        result = read(path) if isinstance(path, str) else {"content": [{"type": "text", "text": "error: path must be a string"}], "isError": True}
        return {"jsonrpc": "2.0", "id": message.get("id"), "result": result}
    return original(message)


tiny.answer = answer
if __name__ == "__main__":
    tiny.serve()
