"""ERR-015: ``prompts/get`` checks the arguments before rendering: a missing required argument is -32602.

2025-11-25 (and 2026-07-28) *Prompts*: servers should validate prompt arguments before processing, and answer
a missing required argument and an unknown prompt name with -32602 Invalid params. A server that renders
anyway puts a blank (or ``None``) where the user's value belongs into the text a model reads; one that crashes
answers -32603, which says the server broke. The probe asks each prompt that declares a required argument
for itself with that argument left out, and asks for a prompt that does not exist. Rendering a prompt runs the
server's code: under ``--no-tool-calls`` nothing is asked, and a prompt that looks like it runs commands or code
is left alone unless the user named it (:meth:`Target.may_get_prompt`).
"""

from __future__ import annotations

from typing import Any

from ..registry import probe
from ..support import Finding, Target, WireSession, compact, error_code, failed, handshake, no_server_action, not_applicable, passed

MAX_PROMPTS = 4
MAX_PAGES = 10
FILLER = "hb-probe-value"


def _prompts(session: WireSession, target: Target) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor: Any = None
    for _ in range(MAX_PAGES):
        answer = session.request("prompts/list", {} if cursor is None else {"cursor": cursor}, timeout=target.timeout)
        result = answer.get("result")
        if not isinstance(result, dict):
            break
        found += [p for p in result.get("prompts") or [] if isinstance(p, dict) and isinstance(p.get("name"), str)]
        cursor = result.get("nextCursor")
        if not cursor:
            break
    return found


def _required(prompt: dict[str, Any]) -> list[str]:
    return [a["name"] for a in prompt.get("arguments") or []
            if isinstance(a, dict) and a.get("required") is True and isinstance(a.get("name"), str)]


@probe("prompt_arguments_checked", "a missing required prompt argument is -32602", over_http=True, reasons={
    "missing_argument_accepted": "prompts/get without a required argument returned a prompt",
    "wrong_code_for_missing": "a missing required argument got an error other than -32602 (often -32603: a crash)",
    "unknown_prompt_not_refused": "prompts/get of a prompt that does not exist was not answered -32602",
}, shares_session=True)
def prompt_arguments_checked(target: Target) -> Finding:
    """Leave out each required argument in turn (others filled); ask for a prompt nobody has."""
    session, init = handshake(target)
    capabilities = init.get("capabilities")
    if not (isinstance(capabilities, dict) and isinstance(capabilities.get("prompts"), dict)):
        return not_applicable("does not apply: the server does not declare the prompts capability")
    if not target.may_request("prompts/get"):
        return not_applicable(no_server_action("prompts/get"))
    listed = [p for p in _prompts(session, target) if _required(p)]
    left_alone = [p["name"] for p in listed if not target.may_get_prompt(p)]
    prompts = [p for p in listed if target.may_get_prompt(p)][:MAX_PROMPTS]
    evidence: list[str] = [f"not rendered (looks like it runs commands or code; name it with --allow-tool-calls): "
                           f"{', '.join(left_alone)}"] if left_alone else []
    for prompt in prompts:
        required = _required(prompt)
        for left_out in required:
            arguments = {name: FILLER for name in required if name != left_out}
            answer = session.request("prompts/get", {"name": prompt["name"], "arguments": arguments},
                                     timeout=target.timeout)
            line = f"prompts/get {prompt['name']} without {left_out!r} -> {compact(answer, 200)}"
            evidence.append(line)
            if "result" in answer:
                return failed("missing_argument_accepted", f"{prompt['name']} was rendered without its required "
                              f"argument {left_out!r}", line)
            if error_code(answer) != -32602:
                return failed("wrong_code_for_missing", f"{prompt['name']} without {left_out!r} got "
                              f"{error_code(answer)}, not -32602", line)
    unknown = "hb-no-such-prompt"
    answer = session.request("prompts/get", {"name": unknown}, timeout=target.timeout)
    line = f"prompts/get {unknown} -> {compact(answer, 200)}"
    evidence.append(line)
    if error_code(answer) != -32602:
        return failed("unknown_prompt_not_refused", f"a prompt that does not exist got {compact(answer, 120)}", line)
    if not prompts:
        why = ("every prompt with a required argument looks like it runs commands or code" if left_alone
               else "no prompt declares a required argument")
        return not_applicable(f"not checked: {why} (an unknown prompt is -32602)", *evidence)
    return passed(f"{len(prompts)} prompt(s) refuse a missing required argument with -32602; so is an unknown "
                  "prompt", *evidence[:8])
