"""SEC-016: no invisible, control or direction-changing characters in anything a model reads from ``tools/list``.

A host shows a person a tool's name and a line of its description; the model reads every character of the
definition. Characters that render as nothing (zero-width spaces, Unicode tag characters, which can spell out a
whole hidden sentence) or that reorder what is shown (bidirectional overrides and isolates) let a definition
say one thing to the reviewer who approves the server and another to the model: tool poisoning. A legitimate
definition needs none of them, so the probe reads every string of every listed tool (name, title,
description, annotations, every key and value of both schemas) and names each such character it finds.
Joiners (U+200C, U+200D) are left alone: scripts and emoji sequences need them.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from ..judging import Problem, judge_each_tool
from ..registry import probe
from ..support import Finding, Target, tool_name

REASONS = {
    "hidden_characters": "a tool's definition holds characters a person does not see (zero-width, tag or other "
                         "format characters)",
    "reordering_characters": "a tool's definition holds bidirectional controls that change the order text is shown in",
    "control_characters": "a tool's definition holds control characters other than newline, carriage return and tab",
}
REORDERING = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}
"""Bidirectional embeddings, overrides, isolates and marks: they change the order in which text is displayed."""
JOINERS = frozenset({0x200C, 0x200D})
"""Zero-width non-joiner and joiner: needed by several scripts and by emoji sequences."""
FIELDS = ("name", "title", "description", "annotations", "inputSchema", "outputSchema")
"""What a model reads of a tool definition (``_meta`` and ``icons`` are for the host)."""


def kind_of(char: str) -> str | None:
    """The reason a character is not wanted in a tool definition, or None."""
    point = ord(char)
    if point in REORDERING:
        return "reordering_characters"
    if point in JOINERS or char in "\n\r\t":
        return None
    category = unicodedata.category(char)
    if category == "Cc":
        return "control_characters"
    if category == "Cf" or 0xE0000 <= point <= 0xE007F:  # format characters, tag characters
        return "hidden_characters"
    return None


def strings(value: Any, where: str) -> list[tuple[str, str]]:
    """Every string in ``value`` (keys too), with the JSON path it sits at."""
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, dict):
        found = []
        for key, item in value.items():
            found += strings(str(key), f"{where}.<key>") + strings(item, f"{where}.{key}")
        return found
    if isinstance(value, list):
        return [pair for i, item in enumerate(value) for pair in strings(item, f"{where}[{i}]")]
    return []


def _problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool_name(tool)
    problems: list[Problem] = []
    for field in FIELDS:
        for where, text in strings(tool.get(field), f"{name}.{field}"):
            found = [(i, c, kind) for i, c in enumerate(text) if (kind := kind_of(c))]
            if found:
                i, char, kind = found[0]
                problems.append((kind, f"{where}: {len(found)} unwanted character(s), the first U+{ord(char):04X} "
                                 f"{unicodedata.name(char, 'unnamed')} at offset {i} "
                                 f"(shown: {text.encode('unicode_escape').decode('ascii')[:120]!r})"))
    return problems


@probe("hidden_text_in_tools", "no invisible, control or reordering characters in tool definitions", over_http=True, reasons=REASONS,
       shares_session=True)
def hidden_text_in_tools(target: Target) -> Finding:
    """Every string a model reads from every listed tool: no character a person reviewing it would not see."""
    return judge_each_tool(target, _problems, reasons=REASONS, kept="hold only characters a person sees",
                           broken="hold characters a person reviewing them does not see")
