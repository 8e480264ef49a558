"""TOOL-005 and TOOL-006: tool names.

TOOL-005 holds every name to the specification's SHOULD (2025-11-25 server/tools#tool-names): 1 to 128
characters of A-Z a-z 0-9 _ - . and unique on the server, because clients route calls by name and some
hosts reject or rewrite other characters; names over the portable 64 are noted as advice, never failed.
TOOL-006 is the handbook's house style on top of that: snake_case verb_noun, so the model reads the action
and its object from the name.
"""

from __future__ import annotations

import re
from typing import Any

from ..registry import probe
from ..support import Finding, Target, failed, not_applicable, passed, tool_name, tools_of
from ._common import Problem, judge_each_tool, main_reason

SPEC_NAME_LENGTH = 128
"""The spec's SHOULD (2025-11-25 server/tools#tool-names): 1 to 128 characters of A-Z a-z 0-9 _ - ."""
PORTABLE_NAME_LENGTH = 64
"""This handbook's portability advice (the conformance check and model APIs stop at 64): reported, never failed."""
SNAKE_VERB_NOUN = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")

VALID_REASONS = {
    "name_bad_characters": "a tool name has characters outside A-Z a-z 0-9 _ - .",
    "name_bad_length": "a tool name is empty or longer than 128 characters",
    "name_duplicated": "two or more tools are listed under the same name",
    "name_not_string": "a tool's name is not a string",
}
STYLE_REASONS = {
    "name_not_snake_case": "a tool name is not lower-case words joined by '_' (or is not a string)",
    "name_single_word": "a tool name is one word, so it does not say both the action and its object",
}


@probe("tool_names_valid", "tool names are 1-128 characters of A-Z a-z 0-9 _ - . and unique", reasons=VALID_REASONS)
def tool_names_valid(target: Target) -> Finding:
    """Every name is 1-128 characters of A-Z a-z 0-9 _ - . (the spec's SHOULD) and no two tools share one;
    names over the portable 64 are noted in the evidence, not failed."""
    tools = tools_of(target)
    if not tools:
        return not_applicable("the server lists no tools")
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for tool in tools:
        name = tool.get("name")
        if not isinstance(name, str):
            problems.append(("name_not_string", f"{tool_name(tool)}: name is not a string"))
            continue
        seen[name] = seen.get(name, 0) + 1
        if len(name) > SPEC_NAME_LENGTH or not name:
            problems.append(("name_bad_length", f"{name[:80]!r}: {len(name)} characters; the specification asks "
                                                f"for 1 to {SPEC_NAME_LENGTH}"))
        bad = sorted({c for c in name if not re.fullmatch(r"[A-Za-z0-9_.-]", c)})
        if bad:
            shown = ", ".join(repr(c) for c in bad)
            problems.append(("name_bad_characters", f"{name[:80]!r}: characters outside A-Z a-z 0-9 _ - . : {shown}"))
    problems += [("name_duplicated", f"{name!r}: listed {count} times; names must be unique")
                 for name, count in seen.items() if count > 1]
    if problems:
        return failed(main_reason(problems, VALID_REASONS),
                      f"{len(problems)} tool-name problem(s) among {len(tools)} tool(s)",
                      *(text for _, text in problems[:12]))
    long = [f"advice: {n[:80]!r} has {len(n)} characters, over the portable {PORTABLE_NAME_LENGTH}"
            for n in seen if len(n) > PORTABLE_NAME_LENGTH]
    return passed(f"all {len(tools)} tool names are 1-128 characters of A-Z a-z 0-9 _ - . and unique",
                  *long,
                  "names: " + ", ".join(sorted(seen)[:30]))


def _style_problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool.get("name")
    if not isinstance(name, str):
        return [("name_not_snake_case", f"{tool_name(tool)}: name is not a string")]
    if SNAKE_VERB_NOUN.fullmatch(name):
        return []
    if re.fullmatch(r"[a-z][a-z0-9]*", name):
        return [("name_single_word",
                 f"{name}: a single word; name the action and its object, e.g. search_{name} or {name}_file")]
    return [("name_not_snake_case",
             f"{name}: not snake_case verb_noun (lower-case words joined by '_', e.g. append_note)")]


@probe("tool_names_snake_case", "tool names are snake_case verb_noun (house style)", reasons=STYLE_REASONS)
def tool_names_snake_case(target: Target) -> Finding:
    """House style: every name is snake_case with at least two words (verb_noun)."""
    return judge_each_tool(target, _style_problems, reasons=STYLE_REASONS,
                           kept="are named in snake_case verb_noun",
                           broken="are not named in snake_case verb_noun")
