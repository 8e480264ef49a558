"""SEC-010: no parameter is evaluated as code or compiled as a template.

``eval`` of an "arithmetic" string, even with the builtins removed, runs whatever the model sends; a
template the caller wrote is code too. The probe sends five payloads to every free-form string parameter
of every callable tool: a Python expression reading the canary variable, a string concatenation any
evaluator would join, a ``{{ }}`` template, a ``${ }`` template literal and a JavaScript ``process.env``
lookup. The joined marker or the canary coming back means something evaluated the text; neither occurs
in the payloads as sent.
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import (
    compact, failed, fill_arguments, Finding, not_applicable, passed, properties, schema_type, session_with_tools,
    show, Target,
)
from ._common import pipeline, shown_text

_EVAL_MARK = "hb_eval_ok"
"""What the concatenating payloads evaluate to (each writes it split in two, so only evaluation joins it)."""


def _payloads(canary_var: str) -> list[str]:
    return [
        f'__import__("os").environ.get("{canary_var}", "")',  # Python eval/exec
        '"hb_ev" + "al_ok_py"',  # any expression evaluator with strings (even with builtins removed)
        "{{'hb_ev' + 'al_ok_tpl'}}",  # Jinja2 / Twig / Nunjucks templates
        "${'hb_ev' + 'al_ok_js'}",  # JavaScript template literals, expression languages
        f"process.env.{canary_var}",  # JavaScript eval
    ]


def _canary_name(target: Target) -> str:
    return next((k for k, v in target.env.items() if v == target.canary), "HB_CANARY")


@probe("no_code_evaluation", "code and template payloads in parameters are never evaluated", calls_tools=True,
       reasons={"evaluated_payload": "a code or template payload came back evaluated (the joined marker or the secret)"})
def no_code_evaluation(target: Target) -> Finding:
    """Send code and template payloads to every free-form string parameter; nothing may be evaluated."""
    session, _, tools = session_with_tools(target)
    payloads = _payloads(_canary_name(target))
    calls: list[tuple[str, dict[str, Any]]] = []
    for tool in tools:
        if not target.may_call(tool):
            continue
        for param, prop in properties(tool).items():
            if schema_type(prop) != "string" or "enum" in prop or "const" in prop:
                continue
            calls.extend((tool["name"], fill_arguments(tool, **{param: payload})) for payload in payloads)
    if not calls:
        return not_applicable("no callable tool has a free-form string parameter")
    calls = calls[:60]
    evaluated, evidence = [], []
    for name, arguments, response in pipeline(session, calls, timeout=target.timeout):
        if response is None:
            evidence.append(f"{name}({compact(arguments, 80)}) -> no answer")
            continue
        text = shown_text(response)
        row = f"{name}({compact(arguments, 80)}) -> {show(text, target, 160)}"
        if _EVAL_MARK in text or (target.canary and target.canary in text):
            evaluated.append(row)
        elif len(evidence) < 8:
            evidence.append(row)
    if evaluated:
        return failed("evaluated_payload", f"{len(evaluated)} payload(s) were evaluated as code or template expressions",
                      *evaluated[:6])
    return passed(f"{len(calls)} code and template payload(s) sent to free-form string parameters; none was evaluated",
                  *evidence)
