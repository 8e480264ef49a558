"""Judging every listed tool with one check: the :data:`Problem` pairs a check returns, and the reason a FAIL is
reported with. The static probes of every gate use it (tool definitions, agent UX)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .support import Finding, Target, failed, listed, not_applicable, passed, tool_name, tools_of

Problem = tuple[str, str]
"""``(reason code, what is wrong where)`` for one defect of one tool."""
ToolCheck = Callable[[dict[str, Any]], list[Problem]]


def main_reason(problems: list[Problem], reasons: Mapping[str, str]) -> str:
    """The reason a FAIL is reported with: of those found, the first in the vocabulary's order."""
    found = {reason for reason, _ in problems}
    return next((code for code in reasons if code in found), problems[0][0])


def judge_each_tool(target: Target, check: ToolCheck, *, reasons: Mapping[str, str], kept: str, broken: str) -> Finding:
    """Run ``check`` on every listed tool: FAIL with the main reason of the problems found, else PASS."""
    tools = tools_of(target)
    if not tools:
        return not_applicable("the server lists no tools")
    found = [check(tool) for tool in tools]
    problems = [p for each in found for p in each]
    if problems:
        bad = sum(1 for each in found if each)
        return failed(main_reason(problems, reasons), f"{bad} of {len(tools)} tool(s) {broken}",
                      *listed(text for _, text in problems))
    return passed(f"all {len(tools)} tool(s) {kept}", "checked: " + ", ".join(tool_name(t) for t in tools[:20]))
