"""What several operations probes share: the syslog level names and the tools a probe may call (read-only
ones first)."""

from __future__ import annotations

from typing import Any

from ..support import Target, callable_tools

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""The RFC 5424 severities MCP logging uses, least severe first."""
LEVEL_RANK = {name: i for i, name in enumerate(LOG_LEVELS)}


def read_only_first(target: Target, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools the probe may call, read-only ones first, then by name."""
    def key(tool: dict[str, Any]) -> tuple[bool, str]:
        annotations = tool.get("annotations")
        read_only = isinstance(annotations, dict) and annotations.get("readOnlyHint") is True
        return not read_only, tool["name"]

    return sorted(callable_tools(target, tools), key=key)
