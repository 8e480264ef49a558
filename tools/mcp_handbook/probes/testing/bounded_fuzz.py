"""TEST-003: a bounded fuzz over every tool's arguments, run from outside, shows what the server's own fuzz
test should have found.

A model writes tool arguments from whatever its context holds: traversal paths, shell metacharacters, NUL,
lone surrogates, 20,000-character pastes, numbers where strings were declared. The probe sends up to 240
``tools/call`` requests built from the first two properties of up to ten tools it may call (each tool in
turn, so every one gets its share), in chunks that each have their own window, within one time budget, and
asserts only what a fuzz test asserts: each call answered exactly once, nothing but JSON-RPC on stdout, and
a server that still answers afterwards. Hostile *frames* (truncated JSON, deep nesting, odd ids) are
ERR-007's probe's to send and to count (``errors/malformed.py``); this one sends none.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..registry import probe
from ..support import (
    Finding, Target, WireTimeout, ask, callable_tools, compact, failed, fill_arguments, is_jsonrpc_message, passed,
    properties, responses, schema_type, session_with_tools,
)

FUZZ_STRINGS: tuple[str, ...] = (
    "", "../../../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "; rm -rf / #", "$(id) `id` | cat", "a\x00b",
    "\ud800", "e\u0301 \u00e9 \ufb01", "\u202egnp.exe", "\U0001f600" * 50, "%s%n{0}{{7*7}}",
)
"""String values: empty, traversal, shell, NUL, a lone surrogate, NFD, right-to-left override, emoji, format strings."""
FUZZ_OTHER: tuple[Any, ...] = (None, 12345, -1, 2**64, 1e308, [], {}, True, "1")
"""Values of every type for every property: wrong types and extreme numbers."""
MAX_TOOLS, MAX_PARAMS, MAX_CALLS, CHUNK = 10, 2, 240, 20
"""Tools fuzzed, properties per tool, calls in all, calls written at once (the pipe is drained between)."""
BASE_CALLS = 120
"""The fuzz's time budget is one chunk's window for this many calls (growing in proportion beyond), plus
:data:`SPARE_WINDOWS` for calls that are never answered."""
SPARE_WINDOWS = 2
"""Windows the budget keeps for chunks holding a call that is never answered (each such chunk costs one)."""
MAX_SECONDS = 15.0
"""The fuzz never takes longer than this, whatever the timeout (an audit gives a probe 30 s)."""
MAX_UNANSWERED = 8
"""Unanswered fuzzed calls after which the fuzz stops early: the server has stopped serving."""


def _fuzz_values(schema: dict[str, Any]) -> list[Any]:
    values: list[Any] = []
    if schema_type(schema) == "string":
        values += list(FUZZ_STRINGS)
        if isinstance(schema.get("maxLength"), int) and schema["maxLength"] < 100_000:
            values.append("x" * (schema["maxLength"] + 1))
        else:
            values.append("x" * 20000)
    return values + list(FUZZ_OTHER)


def _calls(tools: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    """(tool, fuzzed property, arguments): ordinary arguments with one property replaced by a fuzz value, taken
    from the tools in turn so that, when the budget runs out, every tool has had its share."""
    per_tool: list[list[tuple[str, str, dict[str, Any]]]] = []
    for tool in tools[:MAX_TOOLS]:
        props = properties(tool)
        per_tool.append([(tool["name"], param, {**fill_arguments(tool), param: value})
                         for param in list(props)[:MAX_PARAMS] for value in _fuzz_values(props[param])])
    calls = [own[i] for i in range(max(map(len, per_tool), default=0)) for own in per_tool if i < len(own)]
    return calls[:MAX_CALLS]


@probe("bounded_fuzz", "fuzzed tool arguments: one answer each, stdout stays JSON-RPC, serving goes on", calls_tools=True,
       reasons={
           "fuzzed_call_unanswered": "a tools/call with a fuzzed argument got no answer in time",
           "fuzzed_call_answered_twice": "a tools/call with a fuzzed argument got more than one answer",
           "stopped_reading": "the server stopped reading stdin during the fuzz",
           "stopped_serving": "the server did not answer a ping after the fuzz",
           "not_jsonrpc_on_stdout": "a line on stdout is not a JSON-RPC message",
       })
def bounded_fuzz(target: Target) -> Finding:
    """Adversarial arguments: every call answered once, stdout stays JSON-RPC, serving goes on."""
    session, _init, listed = session_with_tools(target)
    tools = [t for t in callable_tools(target, listed) if properties(t)]
    calls = _calls(tools)
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    start = len(session.stdout)
    ids: list[str] = []
    unanswered = 0
    window = min(max(target.timeout, 3.0), 8.0)  # one chunk's answers, all of them, within this
    stop_at = time.monotonic() + min(window * (max(1.0, len(calls) / BASE_CALLS) + SPARE_WINDOWS), MAX_SECONDS)
    for first in range(0, len(calls), CHUNK):  # in chunks: the pipe is drained before each write
        # each chunk has its own window, so a call that is never answered costs one window, not the rest of the fuzz
        deadline = min(time.monotonic() + window, stop_at)
        chunk = list(range(first, min(first + CHUNK, len(calls))))
        blob = b"".join(json.dumps({"jsonrpc": "2.0", "id": f"hb-fuzz-{n}", "method": "tools/call",
                                    "params": {"name": calls[n][0], "arguments": calls[n][2]}}).encode() + b"\n"
                        for n in chunk)
        if not session.send_raw(blob, timeout=max(0.5, deadline - time.monotonic())):
            problems.append(("stopped_reading", f"the server stopped reading stdin during the fuzz (after {first} calls)"))
            break
        for n in chunk:
            ids.append(f"hb-fuzz-{n}")
            try:
                session.wait_for_id(f"hb-fuzz-{n}", timeout=max(0.05, deadline - time.monotonic()))
            except WireTimeout as exc:
                unanswered += 1
                name, param, args = calls[n]
                problems.append(("fuzzed_call_unanswered", f"{name}({param}={compact(args.get(param), 60)}): {exc}"))
        if unanswered > MAX_UNANSWERED or time.monotonic() >= stop_at:
            break
    try:
        ask(session, "hb-fuzz-end", "ping", timeout=target.timeout)
    except WireTimeout as exc:
        problems.append(("stopped_serving", f"the server stopped serving after the fuzz: {exc}"))
    time.sleep(0.1)
    answers = responses(session.stdout[start:])
    for rid in ids:
        count = sum(1 for a in answers if a.get("id") == rid)
        if count > 1:
            problems.append(("fuzzed_call_answered_twice", f"{rid}: {count} answers"))
    junk = [m for m in session.stdout if not is_jsonrpc_message(m.value)]
    if junk:
        problems.append(("not_jsonrpc_on_stdout",
                         f"{len(junk)} stdout line(s) are not JSON-RPC messages: {junk[0].line.text[:120]}"))
    evidence = [f"{len(ids)} of {len(calls)} fuzzed tools/call requests sent, to {len(tools[:MAX_TOOLS])} tool(s)"]
    if problems:
        return failed(problems[0][0], f"{len(problems)} problem(s) under a bounded fuzz",
                      *(text for _reason, text in problems[:12]), *evidence)
    return passed(f"{len(ids)} fuzzed calls each got one answer; stdout stayed JSON-RPC and serving went on", *evidence)
