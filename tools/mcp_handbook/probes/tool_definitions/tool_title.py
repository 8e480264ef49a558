"""TOOL-008: every tool has a human-readable top-level ``title``.

Hosts show the title, not the name, in tool lists and in the prompt that asks a person to approve a call.
The schema's display precedence is the top-level ``title`` (2025-06-18), then ``annotations.title``
(2025-03-26), then ``name``; the handbook asks for the title where every current client looks first, and
in words, since a title that is the identifier again tells the person nothing.
"""

from __future__ import annotations

import re
from typing import Any

from ..registry import probe
from ..support import Finding, Target, tool_name
from ..judging import Problem, judge_each_tool
from ..schemas import annotations_of

REASONS = {
    "title_missing": "a tool has no top-level title and none in annotations",
    "title_only_in_annotations": "a tool's title is set in annotations.title but not at the top level",
    "title_is_identifier": "a tool's title is its name again, or written like an identifier",
}


def _problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool_name(tool)
    title = tool.get("title")
    if not isinstance(title, str) or not title.strip():
        if annotations_of(tool).get("title"):
            return [("title_only_in_annotations",
                     f"{name}.title: missing (annotations.title is set: also put it at the top level)")]
        return [("title_missing", f"{name}.title: missing")]
    if title.strip() == name or re.fullmatch(r"[a-z0-9_.-]+", title.strip()):
        return [("title_is_identifier", f"{name}.title: {title!r} is an identifier, not a human-readable title")]
    return []


@probe("tool_title", "every tool has a human-readable top-level title", over_http=True, reasons=REASONS,
       shares_session=True)
def tool_title(target: Target) -> Finding:
    """Every tool has a human-readable top-level title that is not its name."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="have a human-readable top-level title",
                           broken="lack a human-readable top-level title")
