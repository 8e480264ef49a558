"""TOOL-005 and TOOL-006: tool names.

TOOL-005 holds every name to the specification's SHOULD (2025-11-25 server/tools#tool-names): 1 to 128
characters of A-Z a-z 0-9 _ - . and unique on the server, because clients route calls by name and some
hosts reject or rewrite other characters; names over the portable 64 are noted as advice, never failed.
TOOL-006 is the handbook's house style on top of that: snake_case verb_noun, so the model reads the action
and its object from the name. What the rule is against is no convention at all: a server whose names all
follow one other convention (camelCase, kebab-case, ...) is not applicable, one that mixes them fails.
"""

from __future__ import annotations

import re
from typing import Any

from ..registry import probe
from ..support import Finding, Target, failed, listed, not_applicable, passed, tool_name, tools_of
from ..judging import Problem, judge_each_tool, main_reason

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


@probe("tool_names", "tool names are 1-128 characters of A-Z a-z 0-9 _ - . and unique", over_http=True, reasons=VALID_REASONS,
       shares_session=True)
def tool_names(target: Target) -> Finding:
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
                      *listed(text for _, text in problems))
    long = [f"advice: {n[:80]!r} has {len(n)} characters, over the portable {PORTABLE_NAME_LENGTH}"
            for n in seen if len(n) > PORTABLE_NAME_LENGTH]
    return passed(f"all {len(tools)} tool names are 1-128 characters of A-Z a-z 0-9 _ - . and unique",
                  *long,
                  "names: " + ", ".join(sorted(seen)[:30]))


CONVENTIONS = (
    ("snake_case", re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")),
    ("camelCase", re.compile(r"[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+")),
    ("PascalCase", re.compile(r"(?:[A-Z][a-z0-9]+){2,}")),
    ("kebab-case", re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")),
    ("SCREAMING_SNAKE_CASE", re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")),
    ("dotted namespaces", re.compile(r"[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+")),
)
"""Naming conventions a server may follow throughout, with the pattern of a name of two or more words in each."""
ONE_WORD = re.compile(r"[a-z][a-z0-9]*")
"""A single lower-case word: it fits snake_case, camelCase and kebab-case alike."""


def convention(name: str) -> str | None:
    """The convention a multi-word name follows; None for a single word or a name that follows none."""
    return next((label for label, pattern in CONVENTIONS if pattern.fullmatch(name)), None)


def _style_problems(tool: dict[str, Any]) -> list[Problem]:
    name = tool.get("name")
    if not isinstance(name, str):
        return [("name_not_snake_case", f"{tool_name(tool)}: name is not a string")]
    if SNAKE_VERB_NOUN.fullmatch(name):
        return []
    if ONE_WORD.fullmatch(name):
        return [("name_single_word",
                 f"{name}: a single word; name the action and its object, e.g. search_{name} or {name}_file")]
    found = convention(name) or "no common convention"
    return [("name_not_snake_case",
             f"{name}: {found}, not snake_case verb_noun (lower-case words joined by '_', e.g. append_note)")]


def _other_convention(tools: list[dict[str, Any]]) -> str | None:
    """The one convention other than snake_case that every name of several words follows, if there is one."""
    names = [n for t in tools if isinstance(n := t.get("name"), str)]
    if len(names) != len(tools):
        return None
    found = {convention(n) for n in names if not ONE_WORD.fullmatch(n)}
    return found.pop() if len(found) == 1 and None not in found and "snake_case" not in found else None


@probe("tool_names_snake_case", "tool names are snake_case verb_noun (house style)", over_http=True, reasons=STYLE_REASONS,
       shares_session=True)
def tool_names_snake_case(target: Target) -> Finding:
    """House style: every name is snake_case with at least two words (verb_noun). A server whose names all
    follow one other convention (camelCase, kebab-case, ...) chose its own: not applicable, as the rule says.
    Mixed conventions on one server fail."""
    tools = tools_of(target)
    other = _other_convention(tools)
    if other is not None:
        names = [tool_name(t) for t in tools]
        single = [n for n in names if ONE_WORD.fullmatch(n)]
        return not_applicable(
            f"does not apply: all {len(tools)} tool names follow one consistent convention, {other}, not the house "
            "style's snake_case (the rule accepts another convention applied to every tool)",
            "names: " + ", ".join(names[:30]),
            *([f"advice: single-word name(s) say no action and object: {', '.join(single[:10])}"] if single else []))
    finding = judge_each_tool(target, _style_problems, reasons=STYLE_REASONS,
                              kept="are named in snake_case verb_noun",
                              broken="are not named in snake_case verb_noun")
    styles = sorted({convention(n) or "other" for n in (t.get("name") for t in tools)
                     if isinstance(n, str) and not ONE_WORD.fullmatch(n)})
    if finding.status == "FAIL" and len(styles) > 1:
        return failed(finding.reason, f"{finding.summary}; the names mix conventions ({', '.join(styles)}), so "
                      "there is no one convention to accept in place of snake_case", *finding.evidence)
    return finding
