"""What several security probes share: masking the canary in evidence, what a tool call shows the model,
pipelined calls, and finding a tool that runs a program (and one that makes a child print its environment).

Evidence never shows the canary itself: :func:`mask` and :func:`show` replace it with ``<CANARY>``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

from ..support import (
    ARGS_PARAMS, PROGRAM_PARAMS, ProbeAbort, Target, WireSession, WireTimeout, call_tool, compact, failed,
    fill_arguments, not_applicable, properties, refused, schema_type, show,
)

ENV_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def shown_text(response: dict[str, Any]) -> str:
    """What a tools/call response shows the model: text blocks, structured content, the error."""
    if "error" in response:
        return json.dumps(response["error"], ensure_ascii=False)
    result = response.get("result") or {}
    parts = [str(c.get("text", "")) for c in result.get("content") or [] if isinstance(c, dict)]
    if "structuredContent" in result:
        parts.append(json.dumps(result["structuredContent"], ensure_ascii=False))
    return "\n".join(parts)


def pipeline(session: WireSession, calls: list[tuple[str, dict[str, Any]]], *, timeout: float
             ) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """Send every tools/call at once, then collect the answers (None for no answer) before one deadline."""
    sent = []
    for name, arguments in calls:
        rid = session.new_id()
        session.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        sent.append((rid, name, arguments))
    deadline = time.monotonic() + timeout
    out: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []
    for rid, name, arguments in sent:
        try:
            response: dict[str, Any] | None = session.wait_for_id(rid, timeout=max(deadline - time.monotonic(), 0.05))
        except WireTimeout:
            response = None
        out.append((name, arguments, response))
    return out


def program_tools(target: Target, tools: list[dict[str, Any]]
                  ) -> Iterator[tuple[dict[str, Any], str, str | None, list[Any] | None]]:
    """Callable tools that run a program: (tool, program param, argument-list param or None, allowed programs or None)."""
    for tool in tools:
        if not target.may_call(tool):
            continue
        props = properties(tool)
        prog = next((p for p in PROGRAM_PARAMS if p in props and schema_type(props[p]) == "string"), None)
        if prog is None:
            continue
        args = next((a for a in ARGS_PARAMS if a in props and schema_type(props[a]) == "array"), None)
        choices = props[prog].get("enum")
        yield tool, prog, args, list(choices) if isinstance(choices, list) else None


def env_call(target: Target, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """A call that makes a child print its whole environment (printenv or env), if the server offers one."""
    for tool, prog, args, choices in program_tools(target, tools):
        for name in ("printenv", "env"):
            if choices is None or name in choices:
                extra = {args: []} if args else {}
                return tool["name"], fill_arguments(tool, **{prog: name}, **extra)
    return None


def parse_env(text: str) -> dict[str, str]:
    """``NAME=value`` lines of a printed environment (the first value of each name)."""
    env: dict[str, str] = {}
    for line in text.splitlines():
        m = ENV_LINE.match(line)
        if m:
            env.setdefault(m.group(1), m.group(2))
    return env


def child_environment(target: Target, session: WireSession, tools: list[dict[str, Any]]
                      ) -> tuple[dict[str, str], str, list[str]]:
    """Run the environment-printing call; return (parsed environment, raw text, evidence).

    Aborts N/A when the server offers no such call or refuses it, and with ``no_answer`` when the call is not
    answered (printing an environment does not block: the silence is not what the child-environment rules judge)."""
    call = env_call(target, tools)
    if call is None:
        raise ProbeAbort(not_applicable(
            "no callable tool runs a program that prints its environment (a program/command parameter allowing "
            "printenv or env); review the code that builds child environments by hand"))
    name, arguments = call
    try:
        response = call_tool(session, name, arguments, timeout=target.timeout)
    except WireTimeout as exc:
        raise ProbeAbort(failed("no_answer", f"{name}({compact(arguments, 80)}) did not answer: {exc}",
                                *session.transcript(limit=8))) from None
    text = shown_text(response)
    evidence = [f"{name}({compact(arguments, 80)}) -> {show(response, target, 400)}"]
    if refused(response) and not parse_env(text):
        raise ProbeAbort(not_applicable(f"{name} refused to run {arguments}; no child environment to inspect", *evidence))
    return parse_env(text), text, evidence
