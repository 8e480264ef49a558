"""A read-only ``get_time`` tool whose handler passes its exception's text to the client, as mcp-server-time and
mcp-server-duckdb do; no tool fails on purpose, so only a plausible wrong value shows it. ``--leak`` says how:

- ``path`` (default): a zone that is a folder (``Area`` of the example ``Area/City``) gives the OSError text with
  the absolute path of this fixture's folder, which the caller never sent (mcp-server-time's "[Errno 21] Is a
  directory: '/.../tzdata/zoneinfo/America'");
- ``runtime``: an empty zone gives Python's own "'NoneType' object has no attribute 'fetchall'", as a success
  (mcp-server-duckdb's empty query);
- ``authored``: every failure is a sentence the author wrote, quoting the value it refused;
- ``workspace``: the failure names the refused zone as a path under the server's working folder (the workspace),
  which the caller configured: not a leak.
Otherwise it is the tiny server."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "hostile"))
import tiny

LEAK = tiny.option("--leak") or "path"
HERE = os.path.dirname(os.path.abspath(__file__))

tiny.TOOLS = [{
    "name": "get_time", "description": "The current time in a time zone.", "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "required": ["zone"], "properties": {
        "zone": {"type": "string", "description": "IANA time zone, e.g. 'Area/City'."}}},
}]


def refusal(zone: str) -> tuple[str, bool]:
    """(text, isError) for a zone that is not ``Area/City``."""
    if LEAK == "path" and "/" not in zone:
        return f"Invalid timezone: [Errno 21] Is a directory: '{HERE}/zoneinfo/{zone}'", True
    if LEAK == "runtime" and zone == "":
        return "Error: 'NoneType' object has no attribute 'fetchall'", False
    if LEAK == "workspace":
        return f"No zone file at {os.getcwd()}/{zone}", True
    return f"Unknown time zone {zone!r}. Action: send an IANA name such as 'Europe/Paris'.", True


def call(name: object, arguments: dict) -> dict:
    zone = str(arguments.get("zone"))
    if zone == "Area/City":
        return {"content": [{"type": "text", "text": "12:00"}]}
    text, is_error = refusal(zone)
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


tiny.serve_tools(call)
