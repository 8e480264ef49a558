"""Which tool calls the auditor lets through: the last line of defence against being the incident.

Probes are asked to call only tools that :meth:`Target.may_call` allows, but
the auditor does not take that on trust: every frame a probe writes to a
server under audit passes :meth:`ToolCallGuard.check` first. A ``tools/call``
naming a tool the server listed, that is neither annotated
``readOnlyHint: true`` nor named by the user, is never written.

Names the server did not list (a probe asking for ``no_such_tool`` to see the
error) are let through: there is nothing behind them to harm.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


class BlockedToolCall(Exception):
    """A probe tried to call a tool the auditor may not call; the frame was not sent."""

    def __init__(self, tool: str) -> None:
        super().__init__(f"blocked a call to {tool!r}: not annotated readOnlyHint: true and not named with --allow-tool-calls")
        self.tool = tool


def read_only(tool: dict[str, Any]) -> bool:
    """The spec's own test: ``annotations.readOnlyHint`` is true (its default is false)."""
    annotations = tool.get("annotations")
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


@dataclass(slots=True)
class ToolCallGuard:
    """The tools of one server, split into those that may be called and those that may not."""

    allowed: frozenset[str] | None
    """Names that may be called; None means every tool (only for servers the user owns)."""
    forbidden: frozenset[str] = frozenset()
    """Listed tools that may not be called."""
    blocked: list[str] = field(default_factory=list)
    """Every tool name a probe tried to call and was refused, in order."""

    @classmethod
    def for_tools(cls, tools: Iterable[dict[str, Any]], *, allow: frozenset[str] | None) -> ToolCallGuard:
        """The guard for a server whose ``tools/list`` gave ``tools``; ``allow`` are the user's names."""
        if allow is None:
            return cls(allowed=None)
        names = {t["name"]: t for t in tools if isinstance(t.get("name"), str)}
        allowed = frozenset(n for n, t in names.items() if read_only(t)) | allow
        return cls(allowed=allowed, forbidden=frozenset(names) - allowed)

    def check(self, data: bytes) -> None:
        """Raise :class:`BlockedToolCall` when ``data`` holds a call to a forbidden tool."""
        if self.allowed is None or not self.forbidden or b"tools/call" not in data:
            return
        for line in data.split(b"\n"):
            if b"tools/call" in line:
                tool = self._forbidden_in(line)
                if tool is not None:
                    self.blocked.append(tool)
                    raise BlockedToolCall(tool)

    def _forbidden_in(self, line: bytes) -> str | None:
        try:
            value = json.loads(line)
        except ValueError:
            # Not JSON: a lenient server might still make sense of it, so look for the names themselves.
            return next((n for n in sorted(self.forbidden) if json.dumps(n).encode() in line), None)
        for message in value if isinstance(value, list) else [value]:
            if isinstance(message, dict) and message.get("method") == "tools/call":
                params = message.get("params")
                name = params.get("name") if isinstance(params, dict) else None
                if isinstance(name, str) and name in self.forbidden:
                    return name
        return None
