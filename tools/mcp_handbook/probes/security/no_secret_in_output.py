"""SEC-009: the server's own secret never comes back, in any answer, notification, log line or child's output.

Secrets leak through paths nobody wrote on purpose: a diagnostics tool that dumps the environment, an
exception message returned to the model, a traceback on stderr, a child that inherited everything, a SQL or code
tool that reads the process environment as readily as a table. The server starts with a random canary in its
environment; the probe runs an ordinary session that touches those paths (every callable tool with arguments it
accepts, a child printing its environment, each tool that evaluates code, SQL or shell asked in its own language
to show the environment, an unknown tool and method) and then looks for the canary on stdout (what the client
receives) and on stderr (what the operator's logs keep).

Over HTTP (an audit by URL) the auditor did not start the server, so no canary is planted and stderr is not seen.
The same calls are made, and what can still be judged from the answers is: an answer that holds a process
environment (a ``PATH`` of folders with the ordinary variables of a process, and variables beyond those fixed,
non-secret names) shows the model whatever secret the operator configured, and fails. No answer holding one is
N/A, not checked, never a PASS: the secret itself was never known.

A PASS means the tools that could show the secret were called. When the tools that evaluate code or run programs,
or every tool, may not be called (not annotated read-only, and not allowed with ``--allow-tool-calls``), the probe
says N/A, not checked, and names them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..registry import probe
from ..support import (
    compact, failed, fill_arguments, Finding, mask, not_applicable, passed, session_with_tools, show, Target,
    WireTimeout,
)
from ._common import (
    around, env_call, environment_asks, how_to_allow, not_allowed, ordinary_arguments, parse_env, pipeline, prepare_root,
    runs_code, shown_text,
)

MAX_CALLS = 20
"""Callable tools called with ordinary arguments, at most."""


@probe("no_secret_in_output", "the server's secret appears in no output, log or child", calls_tools=True, reasons={
    "canary_in_output": "the server's secret appeared on stdout, in what the client receives",
    "canary_in_log": "the server's secret appeared on stderr, in what the operator's logs keep",
    "environment_in_output": "over HTTP (no canary can be planted): an answer held the server's process environment, "
                             "and with it whatever secret the operator configured",
}, over_http=True)
def no_secret_in_output(target: Target) -> Finding:
    """An ordinary session calling every callable tool, and asking the tools that evaluate code for the process
    environment: the server's secret must appear in no output, log or child."""
    root = prepare_root(target)
    session, init, tools = session_with_tools(target)
    if "logging" in (init.get("capabilities") or {}):
        try:
            session.request("logging/setLevel", {"level": "debug"}, timeout=target.timeout)
        except WireTimeout:
            pass
    callable_tools = [t for t in tools if target.may_call(t)]
    calls = [(t["name"], ordinary_arguments(target, t, root) or fill_arguments(t)) for t in callable_tools][:MAX_CALLS]
    asks = environment_asks(target, tools)
    first_ask = len(calls)
    calls += [(name, args) for name, args, _ in asks]
    child = env_call(target, tools)
    if child is not None:
        calls.append(child)
    calls.append(("hb_no_such_tool", {}))
    answers = pipeline(session, calls, timeout=target.timeout)
    try:
        session.request("hb/no_such_method", {}, timeout=target.timeout)
    except WireTimeout:
        pass
    session.close(grace=1.0)
    if target.transport == "http":
        return _judged_by_url(target, tools, callable_tools, answers)
    asked = _asked(target, asks, answers[first_ask:])
    on_stdout = [f"stdout: {mask(msg.line.text, target)[:260]}" for msg in session.stdout if target.canary in msg.line.text]
    on_stderr = [f"stderr: {mask(ln.text, target)[:260]}" for ln in session.stderr_lines if target.canary in ln.text]
    evidence = [f"{name}({compact(args, 60)}) -> {show(resp, target, 120) if resp else 'no answer'}"
                for name, args, resp in answers]
    leaks = on_stdout + on_stderr
    if leaks:
        reason = "canary_in_output" if on_stdout else "canary_in_log"
        shown = [row for row, leaked in asked if leaked]
        return failed(reason, f"the server's secret appeared {len(leaks)} time(s) in what it wrote "
                      f"({len(on_stdout)} on stdout, {len(on_stderr)} on stderr)"
                      + (f"; {len(shown)} request(s) for the process environment showed it" if shown else ""),
                      *shown[:4], *leaks[:6], *evidence[:6])
    return _no_leak(target, tools, callable_tools, asked, len(calls), session, evidence)


def _asked(target: Target, asks: list[tuple[str, dict[str, Any], str]],
           answers: list[tuple[str, dict[str, Any], dict[str, Any] | None]]) -> list[tuple[str, bool]]:
    """One evidence row per request for the environment, and whether its answer held the secret (``answers``
    starts with the answer to the first request)."""
    rows = []
    for (name, args, language), (_, _, response) in zip(asks, answers):
        text = shown_text(response) if response else ""
        rows.append((f"{name}({compact(args, 80)}) asked in {language} for the process environment -> "
                     f"{around(text, target.canary, target) if response else 'no answer'}", target.canary in text))
    return rows


def _no_leak(target: Target, tools: list[dict[str, Any]], callable_tools: list[dict[str, Any]],
             asked: list[tuple[str, bool]], count: int, session: Any, evidence: list[str]) -> Finding:
    """PASS only when the tools that could show the secret were called; else N/A, not checked, naming them."""
    blocked = not_allowed(target, tools)
    risky = [t["name"] for t in tools if t.get("name") in blocked and runs_code(t)]
    rows = [row for row, _ in asked]
    if risky:
        return not_applicable(f"not checked: the tools that evaluate code, SQL or shell or run programs, the most "
                              f"likely to show the secret, were not called: {how_to_allow(risky)}",
                              *rows[:4], *evidence[:8])
    if blocked and not callable_tools:
        return not_applicable(f"not checked: the probe could call no tool, so nothing a tool returns was seen: "
                              f"{how_to_allow(blocked)}", *evidence[:4])
    notes = [f"not called: {how_to_allow(blocked)}"] if blocked else []
    return passed(f"{count} call(s)" + (f" ({len(asked)} asking code tools for the process environment)" if asked else "")
                  + f", {len(session.stdout)} stdout and {len(session.stderr_lines)} stderr line(s): "
                  "the secret appears nowhere", *rows[:4], *evidence[:10], *notes)


# -- over HTTP: no canary, so an environment in an answer is the evidence ----------------------------------------

ORDINARY_ENV = frozenset({"HOME", "USER", "LOGNAME", "SHELL", "PWD", "LANG", "TERM", "TMPDIR", "HOSTNAME"})
"""Variables nearly every process has besides ``PATH``: two of them with a ``PATH`` make a text an environment."""
FIXED_ENV = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "TMPDIR", "PWD"})
"""Fixed, non-secret names a minimal child environment is built from (SEC-003's allow-list): a text holding only
these shows no configuration."""
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def environment_names(text: str) -> list[str]:
    """The variable names of a process environment shown in ``text`` (``NAME=value`` lines, or a JSON object of
    strings such as ``JSON.stringify(process.env)``), or ``[]`` when it does not hold one: a ``PATH`` of folders,
    two more ordinary variables of a process, and at least one name beyond the fixed, non-secret ones."""
    found = parse_env(text)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        found.update({k: v for k, v in data.items() if isinstance(v, str) and _ENV_NAME.match(k)})
    names = sorted(found)
    if "/" not in found.get("PATH", "") or len(ORDINARY_ENV & set(names)) < 2:
        return []
    return names if any(n not in FIXED_ENV and not n.startswith("LC_") for n in names) else []


def _judged_by_url(target: Target, tools: list[dict[str, Any]], callable_tools: list[dict[str, Any]],
                   answers: list[tuple[str, dict[str, Any], dict[str, Any] | None]]) -> Finding:
    """FAIL when an answer holds a process environment (its names shown, never its values); otherwise N/A, not
    checked: without a planted secret, an answer that holds none proves nothing about the secrets the server has."""
    shown = []
    for name, args, response in answers:
        names = environment_names(shown_text(response)) if response else []
        if names:
            listed = ", ".join(names[:24]) + (f" and {len(names) - 24} more" if len(names) > 24 else "")
            shown.append(f"{name}({compact(args, 60)}) -> a process environment of {len(names)} variable(s): "
                         f"{listed} (values not shown)")
    if shown:
        return failed("environment_in_output", f"{len(shown)} answer(s) held a process environment: whatever secret "
                      "the operator configures in it is shown to the model (over HTTP no canary could be planted, so "
                      "the environment itself is the evidence)", *shown[:4])
    blocked = not_allowed(target, tools)
    calls = len(answers)
    return not_applicable(
        f"not checked: over HTTP the auditor did not start the server, so no secret could be planted to look for; "
        f"none of {calls} call(s) ({len(callable_tools)} callable tool(s)) answered with a process environment"
        + (f"; not called: {how_to_allow(blocked)}" if blocked else ""),
        *[f"{name}({compact(args, 60)}) -> {show(resp, target, 120) if resp else 'no answer'}"
          for name, args, resp in answers[:6]])
