"""TOOL-009: behaviour hints are set explicitly, not left to the specification's defaults.

A client that reads no hint assumes the worst defaults: a tool that writes, destroys, is not idempotent and
reaches the open world. The probe requires ``readOnlyHint`` and ``openWorldHint`` on every tool, and
``destructiveHint`` and ``idempotentHint`` on every tool that may write; hints must be booleans and must
not contradict each other.
"""

from __future__ import annotations

import json
from typing import Any

from ..registry import probe
from ..support import Finding, Target, compact, tool_name
from ._common import HINTS
from ..judging import Problem, judge_each_tool

REASONS = {
    "annotations_missing": "a tool has no annotations object, so clients assume every default",
    "hint_left_default": "a hint the tool needs is not set, so clients read the specification's default",
    "hint_not_boolean": "a behaviour hint is set to something other than true or false",
    "hints_contradict": "readOnlyHint and destructiveHint are both true",
}
SPEC_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


def _problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool_name(tool)
    ann = tool.get("annotations")
    if not isinstance(ann, dict):
        return [("annotations_missing", f"{name}.annotations: missing: clients assume the defaults, a destructive, "
                                        "non-idempotent, open-world tool")]
    problems: list[Problem] = []
    for hint in HINTS:
        if hint in ann and not isinstance(ann[hint], bool):
            problems.append(("hint_not_boolean",
                             f"{name}.annotations.{hint}: {compact(ann[hint], 30)} is not a boolean"))
    needed = ["readOnlyHint", "openWorldHint"]
    if ann.get("readOnlyHint") is not True:
        needed += ["destructiveHint", "idempotentHint"]  # meaningful only when the tool may write
    for hint in needed:
        if hint not in ann:
            problems.append(("hint_left_default", f"{name}.annotations.{hint}: not set, so clients read the default "
                                                  f"{json.dumps(SPEC_DEFAULTS[hint])}"))
    if ann.get("readOnlyHint") is True and ann.get("destructiveHint") is True:
        problems.append(("hints_contradict", f"{name}.annotations: readOnlyHint and destructiveHint are both true, "
                                             "which contradict"))
    return problems


@probe("annotations_explicit", "behaviour hints are set explicitly, not left to defaults", over_http=True, reasons=REASONS,
       shares_session=True)
def annotations_explicit(target: Target) -> Finding:
    """readOnlyHint and openWorldHint always, destructiveHint and idempotentHint on every tool that may write."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="set their behaviour hints explicitly",
                           broken="leave behaviour hints to the spec defaults")
