"""TOOL-007: tool descriptions work as prompts.

The model picks a tool by reading its description: a missing one, one that restates the name, or one line
that says what but not when to call it, when not to, and what it changes, leaves the choice to guesswork.
This is a heuristic: every listed tool's description must run to 80 or more characters in two or more
sentences and say something beyond the tool's name and title.
"""

from __future__ import annotations

import re
from typing import Any

from ..registry import probe
from ..support import Finding, Target, tool_name
from ..judging import Problem, judge_each_tool
from ..schemas import restates, words

REASONS = {
    "description_missing": "a tool has no description",
    "description_restates_name": "a tool's description says nothing beyond its name and title",
    "description_too_short": "a tool's description is under 80 characters",
    "description_one_sentence": "a tool's description is a single sentence",
}
MIN_TOOL_DESCRIPTION_CHARS = 80
MIN_TOOL_DESCRIPTION_SENTENCES = 2


def _sentences(text: str) -> int:
    return len([s for s in re.split(r"(?<=[.!?;])\s+", text.strip()) if len(words(s)) >= 2])


def _problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool_name(tool)
    text = tool.get("description")
    if not isinstance(text, str) or not text.strip():
        return [("description_missing", f"{name}.description: missing: the model picks tools by reading it")]
    title = tool.get("title")
    title = title if isinstance(title, str) else ""
    if restates(text, name, title):
        return [("description_restates_name", f"{name}.description: {text[:80]!r} restates the name")]
    if len(text.strip()) < MIN_TOOL_DESCRIPTION_CHARS:
        return [("description_too_short",
                 f"{name}.description: {len(text.strip())} characters ({text[:80]!r}); under "
                 f"{MIN_TOOL_DESCRIPTION_CHARS} cannot say what, when, when not and side effects")]
    if _sentences(text) < MIN_TOOL_DESCRIPTION_SENTENCES:
        return [("description_one_sentence",
                 f"{name}.description: one sentence; say when to call it, when not, and its side effects")]
    return []


@probe("descriptions_are_prompts",
       "tool descriptions run to two or more sentences and do not restate the name (heuristic)", over_http=True, reasons=REASONS,
       shares_session=True)
def descriptions_are_prompts(target: Target) -> Finding:
    """Heuristic: every tool has a description of 2+ sentences and 80+ characters that is not its name."""
    return judge_each_tool(target, _problems, reasons=REASONS,
                           kept="have a description of two or more sentences beyond the name",
                           broken="have a missing, one-line or name-restating description")
