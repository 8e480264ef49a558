"""Which tool calls the auditor lets through: the last line of defence against being the incident.

Probes are asked to call only tools that :meth:`Target.may_call` allows, but
the auditor does not take that on trust: every frame a probe writes to a
server under audit passes :meth:`ToolCallGuard.check` first. A ``tools/call``
is written only for a tool the user named, or one every listing seen says is
``readOnlyHint: true`` (the preflight's, and the session's own, since a server
may list differently later). A name nobody listed (a probe asking for
``no_such_tool`` to see the error) has nothing behind it to harm, so it goes
through, unless the server never listed its tools at all: then nothing but
the user's names does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


class BlockedToolCall(Exception):
    """A probe tried to call a tool the auditor may not call; the frame was not sent."""

    def __init__(self, tool: str, why: str = "not annotated readOnlyHint: true and not named with --allow-tool-calls") -> None:
        super().__init__(f"blocked a call to {tool!r}: {why}")
        self.tool = tool


def read_only(tool: Mapping[str, Any]) -> bool:
    """The spec's own test: ``annotations.readOnlyHint`` is true (its default is false)."""
    annotations = tool.get("annotations")
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


def listed_tools(values: Iterable[Any]) -> dict[str, bool]:
    """Tool name -> read-only, from every ``tools/list`` result among ``values`` (false if any says so)."""
    seen: dict[str, bool] = {}
    for value in values:
        result = value.get("result") if isinstance(value, dict) else None
        tools = result.get("tools") if isinstance(result, dict) else None
        for tool in tools if isinstance(tools, list) else ():
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                seen[tool["name"]] = seen.get(tool["name"], True) and read_only(tool)
    return seen


@dataclass(slots=True)
class ToolCallGuard:
    """The user's allowances plus what the preflight learnt about the server's tools."""

    allow: frozenset[str] | None
    """Names the user allowed; None means every tool (only for servers the user owns)."""
    known: dict[str, bool] = field(default_factory=dict)
    """The preflight's tools/list: name -> read-only."""
    listed: bool = False
    """The preflight saw the tool list; when false, unknown names are not called either."""
    blocked: list[str] = field(default_factory=list)
    """Every tool name a probe tried to call and was refused, in order."""
    calls: bool = True
    """False (``--no-tool-calls``): no ``tools/call`` frame is written at all, whatever the tool."""

    @classmethod
    def for_tools(cls, tools: Iterable[dict[str, Any]], *, allow: frozenset[str] | None, listed: bool = True,
                  calls: bool = True) -> ToolCallGuard:
        return cls(allow=allow, known=listed_tools([{"result": {"tools": list(tools)}}]), listed=listed, calls=calls)

    def permits(self, name: str, seen: Mapping[str, bool]) -> bool:
        if not self.calls:
            return False
        if self.allow is None or name in self.allow:
            return True
        flags = [where[name] for where in (self.known, seen) if name in where]
        if flags:
            return all(flags)
        return self.listed or bool(seen)

    def check(self, data: bytes, *, seen: Mapping[str, bool] | None = None) -> None:
        """Raise :class:`BlockedToolCall` when ``data`` holds a call the guard does not permit.

        ``seen`` is what the session's own ``tools/list`` answers said.
        """
        if b"tools/call" in data and not self.calls:
            self.blocked.append("(any tool)")
            raise BlockedToolCall("(any tool)", "the audit runs with --no-tool-calls")
        if self.allow is None or b"tools/call" not in data:
            return
        for line in data.split(b"\n"):
            if b"tools/call" in line:
                tool = self._refused_in(line, seen or {})
                if tool is not None:
                    self.blocked.append(tool)
                    raise BlockedToolCall(tool)

    def _refused_in(self, line: bytes, seen: Mapping[str, bool]) -> str | None:
        try:
            value = json.loads(line)
        except ValueError:
            # Not JSON: a lenient server might still make sense of it, so look for the names themselves.
            if not (self.listed or seen):
                return "(a tool of a server whose tools are unknown)"
            names = sorted({*self.known, *seen})
            return next((n for n in names if not self.permits(n, seen) and json.dumps(n).encode() in line), None)
        for message in value if isinstance(value, list) else [value]:
            if isinstance(message, dict) and message.get("method") == "tools/call":
                params = message.get("params")
                name = params.get("name") if isinstance(params, dict) else None
                if isinstance(name, str) and not self.permits(name, seen):
                    return name
        return None
