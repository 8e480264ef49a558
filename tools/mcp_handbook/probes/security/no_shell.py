"""SEC-002: a child's arguments never pass through a shell.

A server that joins a program and its arguments into one command line for ``sh -c`` lets the model's
text become shell syntax: ``$( )``, backticks, ``;`` and ``|`` run commands the tool never offered. The
probe sends arguments around ``$((A*B))`` for two fixed primes A and B; only a shell turns that into the product,
so the product coming back proves evaluation, whatever the program printed otherwise. Besides a program or
command parameter (with or without an argument list), it tries a command given as a list of strings (program
first) and a free-form ``command_line``/``shell_command``, or ``script`` on a tool that says it runs a shell. A
tool that does not answer within the wait is not checked; the other tools are judged.
"""

from __future__ import annotations

import re
from typing import Any

from ..registry import probe
from ..support import (
    callable_tools, compact, failed, fill_arguments, Finding, not_applicable, passed, properties, schema_type, show,
    Target, tool_name, tools_of,
)
from ..calls import ToolCalls
from ._common import program_tools, shown_text

_PROGRAMS = ("echo", "ls", "cat", "head", "wc", "grep", "printf")
"""Programs tried, in order, when the tool offers a fixed list: ones that show or take their arguments."""


LINE_PARAMS = ("command_line", "commandline", "shell_command", "cmdline")
"""Free-form string parameters that hold a whole command line, whatever the tool says of them."""
ARGV_PARAMS = ("command", "cmd", "argv")
"""Parameters that, as a list of strings, hold a program and its arguments (``["ls", "-la"]``)."""
SHELL_WORDS = re.compile(r"\b(?:shell|sh|bash|zsh|terminal|command[ -]line)\b", re.I)
"""What a tool's name or description says when its ``script`` is a shell script."""


def _other_forms(target: Target, tools: list[dict[str, Any]], covered: set[str]) -> list[tuple[dict[str, Any], str, str]]:
    """``(tool, parameter, form)`` for a command the program vocabulary does not see: ``"argv"`` for a list of
    strings, ``"line"`` for a free-form command line (``script`` only on a tool that says it runs a shell)."""
    found = []
    for tool in callable_tools(target, tools):
        if tool_name(tool) in covered:
            continue
        said = " ".join(str(tool.get(k) or "") for k in ("name", "title", "description")).replace("_", " ")
        for param, prop in properties(tool).items():
            items = prop.get("items")
            items = items if isinstance(items, dict) else {}
            if param.lower() in ARGV_PARAMS and schema_type(prop) == "array" and schema_type(items) in ("string", None):
                found.append((tool, param, "argv"))
                break
            free = schema_type(prop) == "string" and "enum" not in prop and "const" not in prop
            if free and (param.lower() in LINE_PARAMS or (param.lower() == "script" and SHELL_WORDS.search(said))):
                found.append((tool, param, "line"))
                break
    return found


FACTORS = (7919, 7907)
"""Two primes: their product appears in an answer only if a shell evaluated ``$((A*B))``. Fixed, so that
recorded evidence is the same on every run (a server cannot know them in advance any better than random ones)."""


@probe("no_shell", "shell syntax in a child's arguments is never evaluated", calls_tools=True,
       reasons={"shell_evaluated_argument": "an argument's $((A*B)) came back as the product: a shell parsed the arguments"}, shares_session=True)
def no_shell(target: Target) -> Finding:
    """Run a program with arguments carrying shell syntax; the evaluated marker must never appear."""
    tools = tools_of(target)
    a, b = FACTORS
    marker = f"hbx_{a * b}_"
    expr = f"$(({a}*{b}))"
    payloads = [f"hbx_{expr}_1", f"x;echo hbx_{expr}_2", f"`echo hbx_{expr}_3`", f"x|echo hbx_{expr}_4",
                f"$(echo hbx_{expr}_5)"]
    plan: dict[str, list[dict[str, Any]]] = {}
    for tool, prog, args, choices in program_tools(target, tools):
        program: str | None = "echo"
        if choices is not None:
            program = next((p for p in _PROGRAMS if p in choices), None)
            program = program or next((c for c in choices if isinstance(c, str)), None)
        if program is None or (args is None and choices is not None):
            continue  # nothing free-form reaches the program
        for payload in payloads:
            if args is not None:
                plan.setdefault(tool["name"], []).append(fill_arguments(tool, {prog: program, args: [payload]}))
            else:
                plan.setdefault(tool["name"], []).append(fill_arguments(tool, **{prog: f"{program} {payload}"}))
        if len(plan) >= 2:
            break
    for tool, param, form in _other_forms(target, tools, set(plan))[:2]:
        plan[tool["name"]] = [fill_arguments(tool, {param: ["echo", payload] if form == "argv" else f"echo {payload}"})
                              for payload in payloads]
    if not plan:
        return not_applicable("no callable tool runs a program with caller-supplied arguments "
                              "(a program/command parameter with an argument list or a free-form command)")
    calls = ToolCalls(target, wait=target.timeout)
    evidence, evaluated = [], []
    for name, arguments in plan.items():
        for sent, response in zip(arguments, calls.calls(name, arguments)):
            if response is None:
                continue
            text = shown_text(response)
            row = f"{name}({compact(sent, 90)}) -> {show(text, target, 160)}"
            evidence.append(row)
            if marker in text:
                evaluated.append(row)
    if evaluated:
        return failed("shell_evaluated_argument", f"a shell evaluated {len(evaluated)} argument(s): {expr} came back as "
                      f"{a * b}, so the arguments were joined into a command line", *evaluated[:8], *calls.notes)
    if not evidence:
        return calls.not_checked("no other tool runs a program with caller-supplied arguments")
    literal = sum(1 for row in evidence if "$((" in row.split("->", 1)[-1])
    return passed(f"{len(evidence)} argument(s) with $(( )), ;, |, backticks and $( ) reached the program unevaluated "
                  f"({literal} shown back literally)"
                  + (f"; {len(calls.unanswered)} tool(s) not checked (no answer)" if calls.unanswered else ""),
                  *evidence[:8], *calls.notes)
