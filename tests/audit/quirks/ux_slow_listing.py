"""A listing tool that is slow by design next to a fast, well-capped one, on a server that answers one
request at a time (as a stdio server built on an SDK without concurrency does).

``list_items`` rebuilds its index on every call and documents that it takes about 2 seconds; ``list_files``
answers at once with at most 20 names of a folder and says how many more there are. Both are read-only, and
every tool error carries an ``Action:`` line. The server stays bounded: the sleep is 8 s and stdin's end stops it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hostile"))
import tiny

PAGE = 20
SLOW_SECONDS = 8.0
tiny.TOOLS = [
    {"name": "list_items", "annotations": {"readOnlyHint": True},
     "description": "List the items of the workspace index, 20 at a time. Takes about 2 seconds: the index is "
                    "rebuilt on every call.",
     "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False}},
    {"name": "list_files", "annotations": {"readOnlyHint": True},
     "description": "List the names in a folder of the workspace, 20 at a time, sorted.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string", "description": "A folder, e.g. \".\"."}},
                     "required": ["path"], "additionalProperties": False}},
]


def _page(folder: str) -> str:
    names = sorted(os.listdir(folder))
    shown = "\n".join(names[:PAGE])
    more = len(names) - PAGE
    return shown + (f"\n[truncated: {more} more; call again with offset=20]" if more > 0 else "")


def _error(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def call(name: str, arguments: dict) -> dict:
    if name == "list_items":
        time.sleep(SLOW_SECONDS)
        return {"content": [{"type": "text", "text": _page(".")}]}
    if name == "list_files":
        if not isinstance(arguments.get("path"), str):
            return _error("path is required. Action: pass the folder to list, e.g. \".\".")
        if not os.path.isdir(arguments["path"]):
            return _error(f"No folder {arguments['path']!r}. Action: call list_files with path \".\" to see the folders.")
        return {"content": [{"type": "text", "text": _page(arguments["path"])}]}
    return _error(f"Unknown tool {name!r}. Action: call tools/list.")


tiny.serve_tools(call)
