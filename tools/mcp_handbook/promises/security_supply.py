"""Promises of the security gate's manual rules on reach and supply chain, checked on the code itself.

* ``reach_bounded`` (SEC-012): the tool definitions a block declares offer no catch-all: no free-form command,
  code or SQL parameter, and no property beyond those the schema names. A URL parameter is not judged here: a
  fetch tool may take one when its fetch keeps SEC-020 to SEC-023, which code, not a schema, shows.

The supply-chain rules' blocks (SEC-028, SEC-029, SEC-030) are JSON, shell and workflow files, which their
language's tool checks (:mod:`.languages`); they make no promise a Python check could observe.
"""

from __future__ import annotations

from typing import Any

from .registry import Broken, promise

CATCH_ALL = ("command", "cmd", "shell", "script", "code", "expression", "eval", "sql", "query")
"""Parameter names that, as a free string, hand the caller the server's whole reach."""


def tool_definitions(block: Any) -> dict[str, dict[str, Any]]:
    """Every module-level dict of the block that looks like a tool definition (has an ``inputSchema``), by name."""
    return {name: value for name, value in vars(block).items()
            if not name.startswith("_") and isinstance(value, dict) and isinstance(value.get("inputSchema"), dict)}


def _free_string(schema: Any) -> bool:
    """A string property nothing narrows: no enum, const or pattern."""
    return (isinstance(schema, dict) and schema.get("type") == "string"
            and not any(key in schema for key in ("enum", "const", "pattern")))


@promise("reach_bounded", "the tools declared offer no catch-all: no free-form command, code or SQL "
         "parameter, and no unnamed property",
         reasons={"catch_all_parameter": "a tool takes a free-form command, code or SQL string",
                  "open_schema": "a tool's inputSchema accepts properties it does not name"},
         seconds=10)
def reach_bounded(block: Any) -> None:
    tools = tool_definitions(block)
    if not tools:
        raise ValueError("the block declares no tool definition (a dict with an inputSchema) to check")
    for name, tool in tools.items():
        properties = tool["inputSchema"].get("properties") or {}
        for key, schema in properties.items():
            if key.lower() in CATCH_ALL and _free_string(schema):
                raise Broken("catch_all_parameter", f"{name} ({tool.get('name')!r}) takes {key!r}, a string nothing "
                             "narrows: whatever the caller writes there runs or is reached")
    for name, tool in tools.items():
        if tool["inputSchema"].get("additionalProperties") is not False:
            raise Broken("open_schema", f"{name} ({tool.get('name')!r}) does not set additionalProperties: false")
