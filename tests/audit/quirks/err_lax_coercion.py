"""A read-only ``list_items`` tool with an integer ``limit`` and a boolean ``verbose``. ``--mode lax`` (default)
validates as pydantic's lax mode does, as mcp-server-git's MCPServer does: "3" and true are taken as the integer
3 and 1, "true" and 1 as true, and the handler runs. ``--mode strict`` refuses every value whose JSON type is not
the declared one with an isError result naming the field. Otherwise it is the tiny server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

MODE = tiny.option("--mode") or "lax"

tiny.TOOLS = [{
    "name": "list_items", "description": "List the first items.", "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "properties": {
        "limit": {"type": "integer", "minimum": 1, "default": 3}, "verbose": {"type": "boolean", "default": False}}},
}]


def lax_int(value: object) -> int | None:
    if isinstance(value, bool) or (isinstance(value, str) and value.strip().isdigit()):
        return int(value)
    return value if isinstance(value, int) else None


def refused(field: str, kind: str) -> dict:
    return {"content": [{"type": "text", "text": f"'{field}' must be {kind}."}], "isError": True}


def call(name: object, arguments: dict) -> dict:
    limit, verbose = arguments.get("limit", 3), arguments.get("verbose", False)
    if MODE == "strict":
        if isinstance(limit, bool) or not isinstance(limit, int):
            return refused("limit", "an integer")
        if not isinstance(verbose, bool):
            return refused("verbose", "true or false")
    else:
        limit = lax_int(limit)
        if limit is None:
            return refused("limit", "an integer")
        verbose = verbose in (True, 1, "true")
    items = [f"item {n}" for n in range(1, limit + 1)]
    return {"content": [{"type": "text", "text": ", ".join(items) + (" (verbose)" if verbose else "")}]}


tiny.serve_tools(call)
