"""SEC-002: a child's arguments never pass through a shell.

A server that joins a program and its arguments into one command line for ``sh -c`` lets the model's
text become shell syntax: ``$( )``, backticks, ``;`` and ``|`` run commands the tool never offered. The
probe sends arguments around ``$((A*B))`` for two fixed primes A and B; only a shell turns that into the product,
so the product coming back proves evaluation, whatever the program printed otherwise.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import compact, failed, fill_arguments, Finding, not_applicable, passed, session_with_tools, show, Target
from ._common import pipeline, program_tools, shown_text

_PROGRAMS = ("echo", "ls", "cat", "head", "wc", "grep", "printf")
"""Programs tried, in order, when the tool offers a fixed list: ones that show or take their arguments."""


FACTORS = (7919, 7907)
"""Two primes: their product appears in an answer only if a shell evaluated ``$((A*B))``. Fixed, so that
recorded evidence is the same on every run (a server cannot know them in advance any better than random ones)."""


@probe("no_shell_evaluation", "shell syntax in a child's arguments is never evaluated", calls_tools=True,
       reasons={"shell_evaluated_argument": "an argument's $((A*B)) came back as the product: a shell parsed the arguments"})
def no_shell_evaluation(target: Target) -> Finding:
    """Run a program with arguments carrying shell syntax; the evaluated marker must never appear."""
    session, _, tools = session_with_tools(target)
    a, b = FACTORS
    marker = f"hbx_{a * b}_"
    expr = f"$(({a}*{b}))"
    payloads = [f"hbx_{expr}_1", f"x;echo hbx_{expr}_2", f"`echo hbx_{expr}_3`", f"x|echo hbx_{expr}_4",
                f"$(echo hbx_{expr}_5)"]
    calls: list[tuple[str, dict[str, Any]]] = []
    for tool, prog, args, choices in program_tools(target, tools):
        if choices is None:
            program = "echo"
        else:
            program = next((p for p in _PROGRAMS if p in choices), None)
            program = program or next((c for c in choices if isinstance(c, str)), None)
        if program is None or (args is None and choices is not None):
            continue  # nothing free-form reaches the program
        for payload in payloads:
            if args is not None:
                calls.append((tool["name"], fill_arguments(tool, **{prog: program, args: [payload]})))
            else:
                calls.append((tool["name"], fill_arguments(tool, **{prog: f"{program} {payload}"})))
        if len(calls) >= 10:
            break
    if not calls:
        return not_applicable("no callable tool runs a program with caller-supplied arguments "
                              "(a program/command parameter with an argument list or a free-form command)")
    evidence, evaluated = [], []
    for name, arguments, response in pipeline(session, calls, timeout=target.timeout):
        if response is None:
            evidence.append(f"{name}({compact(arguments, 90)}) -> no answer")
            continue
        text = shown_text(response)
        row = f"{name}({compact(arguments, 90)}) -> {show(text, target, 160)}"
        evidence.append(row)
        if marker in text:
            evaluated.append(row)
    if evaluated:
        return failed("shell_evaluated_argument", f"a shell evaluated {len(evaluated)} argument(s): {expr} came back as "
                      f"{a * b}, so the arguments were joined into a command line", *evaluated[:6])
    literal = sum(1 for row in evidence if "$((" in row.split("->", 1)[-1])
    return passed(f"{len(calls)} argument(s) with $(( )), ;, |, backticks and $( ) reached the program unevaluated "
                  f"({literal} shown back literally)", *evidence[:8])
