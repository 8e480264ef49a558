"""A notes server that lists and reads only Markdown files (``.md``) of the folder it was started in, as resources.

``resources/list`` names each ``*.md`` file as ``file:///NAME``; ``resources/read`` decodes the URI's path once,
refuses any other suffix, then any path that resolves outside the folder, unless ``--escape`` (no containment:
``..``, absolute URIs and symlinks lead anywhere).
"""

import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

ROOT = Path.cwd().resolve()
plain = tiny.answer


def read(uri: str) -> dict:
    parts = urlsplit(uri)
    if parts.scheme != "file":
        raise PermissionError(f"unknown resource {uri!r}")
    path = unquote(parts.path)
    if not path.endswith(".md"):
        raise PermissionError(f"only Markdown notes are served, not {uri!r}")
    full = Path(path) if "--escape" in sys.argv and path.startswith(str(ROOT.parent)) else (ROOT / path.lstrip("/")).resolve()
    if "--escape" not in sys.argv and not full.is_relative_to(ROOT):
        raise PermissionError(f"resource {uri!r} is outside the notes folder")
    return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": full.read_text()}]}


def answer(message: dict) -> dict | None:
    method, rid = message.get("method"), message.get("id")
    if method == "initialize":
        reply = plain(message)
        reply["result"]["capabilities"] = {"resources": {}}
        return reply
    if method == "resources/list":
        notes = [{"uri": f"file:///{p.name}", "name": p.name} for p in sorted(ROOT.glob("*.md"))]
        return {"jsonrpc": "2.0", "id": rid, "result": {"resources": notes}}
    if method == "resources/templates/list":
        return {"jsonrpc": "2.0", "id": rid, "result": {"resourceTemplates": []}}
    if method == "resources/read":
        try:
            return {"jsonrpc": "2.0", "id": rid, "result": read(str((message.get("params") or {}).get("uri")))}
        except (OSError, ValueError) as exc:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32002, "message": str(exc)}}
    return plain(message)


tiny.answer = answer
if __name__ == "__main__":
    (ROOT / "readme.md").write_text("# notes\n")  # the server's own note, so it lists something before the probe plants
    tiny.serve()
