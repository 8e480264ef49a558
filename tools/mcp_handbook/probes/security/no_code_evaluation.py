"""SEC-010: no parameter is evaluated as code or compiled as a template.

``eval`` of an "arithmetic" string, even with the builtins removed, runs whatever the model sends; a
template the caller wrote is code too. The probe sends five payloads to every free-form string parameter
of every callable tool: a Python expression reading the canary variable, a string concatenation any
evaluator would join, a ``{{ }}`` template, a ``${ }`` template literal and a JavaScript ``process.env``
lookup. A parameter that carries code (``code``, ``script``, ``statement``, ``expression``, ``sql``, ``command``,
``cmd``, or a ``query`` the tool says is SQL) also gets statements, whose result shows only when they run:
a Python ``print``, a JavaScript ``console.log`` and two SQL ``SELECT`` concatenations. The joined marker or
the canary coming back in a result, or the marker in a line the server wrote to its stderr or, not as JSON,
to its stdout, means something evaluated the text; neither occurs in the payloads as sent. A tool that does not
answer within the wait is not checked; the other tools are judged.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import (
    callable_tools, compact, failed, fill_arguments, Finding, not_applicable, passed, properties, schema_type, show,
    Target, tool_name, tools_of,
)
from ..calls import ToolCalls
from ..schemas import code_params
from ._common import shown_text

_EVAL_MARK = "hb_eval_ok"
"""What the concatenating payloads evaluate to (each writes it split in two, so only evaluation joins it)."""
MAX_CALLS = 60


def _payloads(canary_var: str) -> list[str]:
    return [
        f'__import__("os").environ.get("{canary_var}", "")',  # Python eval/exec
        '"hb_ev" + "al_ok_py"',  # any expression evaluator with strings (even with builtins removed)
        "{{'hb_ev' + 'al_ok_tpl'}}",  # Jinja2 / Twig / Nunjucks templates
        "${'hb_ev' + 'al_ok_js'}",  # JavaScript template literals, expression languages
        f"process.env.{canary_var}",  # JavaScript eval
    ]


STATEMENTS = (
    'print("hb_ev" + "al_ok_pyexec")',  # Python exec: an expression statement shows nothing, a print does
    'console.log("hb_ev" + "al_ok_jsrun")',  # a JavaScript runner
    "SELECT 'hb_ev' || 'al_ok_sql'",  # SQL (SQLite, PostgreSQL, Oracle, standard ||)
    "SELECT CONCAT('hb_ev', 'al_ok_sql')",  # SQL (MySQL, MariaDB, SQL Server)
)
"""Statements for parameters that carry code: what they print or select shows only when they are run."""


def _canary_name(target: Target) -> str:
    return next((k for k, v in target.env.items() if v == target.canary), "HB_CANARY")


def _planned(target: Target, tools: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Arguments to send, by tool: parameters that carry code first (expressions and statements), then every
    other free-form string parameter (expressions), at most :data:`MAX_CALLS` in all."""
    payloads = _payloads(_canary_name(target))
    code: list[tuple[str, dict[str, Any]]] = []
    other: list[tuple[str, dict[str, Any]]] = []
    for tool in callable_tools(target, tools):
        carries_code = set(code_params(tool))
        for param, prop in properties(tool).items():
            if param in carries_code:
                code.extend((tool_name(tool), fill_arguments(tool, **{param: p})) for p in [*payloads, *STATEMENTS])
            elif schema_type(prop) == "string" and "enum" not in prop and "const" not in prop:
                other.extend((tool_name(tool), fill_arguments(tool, **{param: p})) for p in payloads)
    plan: dict[str, list[dict[str, Any]]] = {}
    for name, arguments in [*code, *other][:MAX_CALLS]:
        plan.setdefault(name, []).append(arguments)
    return plan


def _evaluated_in_logs(target: Target) -> list[str]:
    """Lines the server wrote to stderr, or to stdout not as JSON, that hold the joined marker (a ``print`` that ran
    inside the server). Not the canary: a server that logs its environment breaks another rule, not this one."""
    rows = []
    for session in target.sessions:
        lines = [("stderr", ln.text) for ln in session.stderr_lines]
        lines += [("stdout", m.line.text) for m in session.stdout if m.value is None]
        rows += [f"{stream} of the server: {show(text, target, 160)}" for stream, text in lines
                 if _EVAL_MARK in text]
    return rows


@probe("no_code_evaluation", "code and template payloads in parameters are never evaluated", calls_tools=True,
       reasons={"evaluated_payload": "a code or template payload came back evaluated (the joined marker or the secret)"}, shares_session=True)
def no_code_evaluation(target: Target) -> Finding:
    """Send code and template payloads to every free-form string parameter, and statements to those that carry
    code; nothing may be evaluated."""
    plan = _planned(target, tools_of(target))
    if not plan:
        return not_applicable("no callable tool has a free-form string parameter")
    calls = ToolCalls(target, wait=target.timeout)
    evaluated: list[str] = []
    evidence: list[str] = []
    answered = 0
    for name, arguments in plan.items():
        responses = calls.calls(name, arguments)
        for args, response in zip(arguments, responses):
            if response is None:
                continue
            answered += 1
            text = shown_text(response)
            row = f"{name}({compact(args, 80)}) -> {show(text, target, 160)}"
            if _EVAL_MARK in text or (target.canary and target.canary in text):
                evaluated.append(row)
            elif len(evidence) < 8:
                evidence.append(row)
    evaluated += _evaluated_in_logs(target)
    if evaluated:
        return failed("evaluated_payload", f"{len(evaluated)} payload(s) were evaluated as code or template expressions",
                      *evaluated[:8], *calls.notes)
    if not answered:
        return calls.not_checked("no other tool took a free-form string parameter")
    return passed(f"{answered} code and template payload(s) sent to free-form string parameters; none was evaluated"
                  + (f"; {len(calls.unanswered)} tool(s) not checked (no answer)" if calls.unanswered else ""),
                  *evidence, *calls.notes)
