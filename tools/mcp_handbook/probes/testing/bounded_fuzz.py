"""TEST-003: a bounded fuzz over every tool's arguments, run from outside, shows what the server's own fuzz
test should have found.

A model writes tool arguments from whatever its context holds: traversal paths, shell metacharacters, NUL,
lone surrogates, 20,000-character pastes, numbers where strings were declared. The probe sends up to 240
``tools/call`` requests built from the first two properties of every tool it may call (each tool in turn, so
every one gets its share), in chunks that each have their own window, within one time budget, and asserts
only what a fuzz test asserts: each call answered exactly once, nothing but JSON-RPC on stdout while it runs,
and a server that still answers afterwards.

It judges argument handling only. Hostile *frames* (truncated JSON, deep nesting, odd ids) are ERR-007's
probe's to send and to count (``errors/malformed_message_errors.py``); this one sends none, and it does not count a frame
the server cannot read at all. Before the fuzz, each fuzz value rides once in a ``ping``'s ``_meta``: a value
whose ping goes unanswered makes any frame unreadable to this server (a JSON reader that rejects lone
surrogates, say), so it is not sent as an argument (the finding lists it, as ERR-007's ground) and the fuzz
goes on with every other value.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..registry import probe
from ..support import (
    Finding, Target, WireSession, WireTimeout, ask, callable_tools, compact, failed, fill_arguments, handshake,
    is_jsonrpc_message, listed, not_applicable, passed, properties, responses, schema_type, session_with_tools,
)

FUZZ_STRINGS: tuple[str, ...] = (
    "", "../../../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "; rm -rf / #", "$(id) `id` | cat", "a\x00b",
    "\ud800", "e\u0301 \u00e9 \ufb01", "\u202egnp.exe", "\U0001f600" * 50, "%s%n{0}{{7*7}}",
)
"""String values: empty, traversal, shell, NUL, a lone surrogate, NFD, right-to-left override, emoji, format strings."""
FUZZ_OTHER: tuple[Any, ...] = (None, 12345, -1, 2**64, 1e308, [], {}, True, "1")
"""Values of every type for every property: wrong types and extreme numbers."""
MAX_PARAMS, MAX_CALLS, CHUNK = 2, 240, 20
"""Properties fuzzed per tool, calls in all, calls written at once (the pipe is drained between)."""
BASE_CALLS = 120
"""The fuzz's time budget is one chunk's window for this many calls (growing in proportion beyond), plus
:data:`SPARE_WINDOWS` for calls that are never answered."""
SPARE_WINDOWS = 2
"""Windows the budget keeps for chunks holding a call that is never answered (each such chunk costs one)."""
MAX_SECONDS = 15.0
"""The fuzz never takes longer than this, whatever the timeout (an audit gives a probe 30 s)."""
MAX_UNANSWERED = 8
"""Unanswered fuzzed calls after which the fuzz stops early: the server has stopped serving."""
MAX_CONTROL_SESSIONS = 3
"""Server processes the frame check may use: a server that dies on a frame is started afresh, at most this often."""

Call = tuple[str, str, dict[str, Any], str]
"""(tool, fuzzed property, arguments, the fuzz value's key)."""


def _asks_for_much(value: Any) -> bool:
    """A number large enough that a tool taking it as a duration or a count could rightly work for minutes."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 1000


def _key(value: Any) -> str:
    """A fuzz value as one hashable, printable string (its JSON, non-ASCII escaped)."""
    return json.dumps(value, sort_keys=True)


def _fuzz_values(schema: dict[str, Any]) -> list[Any]:
    values: list[Any] = []
    if schema_type(schema) == "string":
        values += list(FUZZ_STRINGS)
        if isinstance(schema.get("maxLength"), int) and schema["maxLength"] < 100_000:
            values.append("x" * (schema["maxLength"] + 1))
        else:
            values.append("x" * 20000)
    return values + list(FUZZ_OTHER)


def _calls(tools: list[dict[str, Any]]) -> list[Call]:
    """Ordinary arguments with one property replaced by a fuzz value, the tool's properties taken in turn and the
    tools taken in turn, so that, when the budget runs out, every tool and property has had its share; the values
    that ask for much last."""
    per_tool: list[list[Call]] = []
    for tool in tools:
        props = properties(tool)
        columns = [[(tool["name"], param, {**fill_arguments(tool), param: value}, _key(value))
                    for value in _fuzz_values(props[param])] for param in list(props)[:MAX_PARAMS]]
        per_tool.append([col[i] for i in range(max(map(len, columns), default=0)) for col in columns if i < len(col)])
    calls = [own[i] for i in range(max(map(len, per_tool), default=0)) for own in per_tool if i < len(own)][:MAX_CALLS]
    # a value that asks for much (a duration, a count) may rightly go unanswered for minutes: those calls go last,
    # so that together they cost the fuzz one window at its end, not a window in every chunk they fall in
    return [c for c in calls if not _asks_for_much(c[2][c[1]])] + [c for c in calls if _asks_for_much(c[2][c[1]])]


def _frame_check(target: Target, session: WireSession, values: dict[str, Any],
                 window: float) -> tuple[WireSession, dict[str, str]]:
    """Which fuzz values make a frame this server cannot read at all, whatever the method: each rides once in a
    ``ping``'s ``_meta`` (a burst, closed by a plain ping). Returns a live session and {value key: what was seen}.

    A value whose ping is not answered under its id is unreadable. A server that stops answering altogether is
    started afresh (at most :data:`MAX_CONTROL_SESSIONS` processes), the first unanswered value taken as the cause."""
    pending = list(values)
    unreadable: dict[str, str] = {}
    deadline = time.monotonic() + 2 * window
    alive = True
    for attempt in range(MAX_CONTROL_SESSIONS):
        if not pending or time.monotonic() >= deadline:
            break
        if not alive:
            session, _init = handshake(target)
        ids = {f"hb-frame-{attempt}-{n}": key for n, key in enumerate(pending)}
        end = f"hb-frame-{attempt}-end"
        start = len(session.stdout)
        blob = b"".join(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping",
                                    "params": {"_meta": {"hb_fuzz_value": values[key]}}}).encode() + b"\n"
                        for rid, key in ids.items())
        alive = session.send_raw(blob + json.dumps({"jsonrpc": "2.0", "id": end, "method": "ping"}).encode() + b"\n",
                                 timeout=max(0.5, deadline - time.monotonic()))
        try:
            if alive:
                session.wait_for_id(end, timeout=max(0.1, deadline - time.monotonic()), garbage_grace=window)
        except WireTimeout:
            alive = False
        if alive:
            time.sleep(0.1)  # room for an answer written just after the closing ping's
        answered = {r.get("id") for r in responses(session.stdout[start:])}
        pending = [key for rid, key in ids.items() if rid not in answered]
        if alive:
            unreadable.update((key, "a ping carrying it got no answer") for key in pending)
            return session, unreadable
        if pending:
            unreadable[pending.pop(0)] = "the server stopped answering at a ping carrying it"
        session.close(grace=0.2)
    unreadable.update((key, "not checked: the server stopped answering before its ping") for key in pending)
    if not alive:
        session, _init = handshake(target)
    return session, unreadable


@probe("bounded_fuzz", "fuzzed tool arguments: one answer each, stdout stays JSON-RPC, serving goes on", calls_tools=True,
       long=True, reasons={
           "fuzzed_call_unanswered": "a tools/call with a fuzzed argument got no answer in time",
           "fuzzed_call_answered_twice": "a tools/call with a fuzzed argument got more than one answer",
           "stopped_reading": "the server stopped reading stdin during the fuzz",
           "stopped_serving": "the server did not answer a ping after the fuzz",
           "not_jsonrpc_on_stdout": "a line the server wrote on stdout during the fuzz is not a JSON-RPC message",
       })
def bounded_fuzz(target: Target) -> Finding:
    """Adversarial arguments: every call answered once, stdout stays JSON-RPC, serving goes on."""
    session, _init, offered = session_with_tools(target)
    with_args = [t for t in offered if isinstance(t.get("name"), str) and properties(t)]
    tools = [t for t in callable_tools(target, offered) if properties(t)]
    if not with_args:
        return not_applicable("no tool takes arguments: there is nothing to fuzz at the tool layer")
    if not tools:
        return not_applicable(f"not checked: none of the {len(with_args)} tool(s) that take arguments may be called")
    window = min(max(target.timeout, 3.0), 8.0)  # one chunk's answers, all of them, within this
    planned = _calls(tools)
    session, unreadable = _frame_check(target, session, {key: args[param] for _t, param, args, key in planned}, window)
    calls = [c for c in planned if c[3] not in unreadable]
    skipped = [f"not sent as an argument: {compact(key, 60)} ({why}); a frame carrying it cannot be read by this "
               "server, which is ERR-007's to judge" for key, why in unreadable.items()]
    if not calls:
        return not_applicable("not checked: the server cannot read a frame carrying any of the fuzz values", *skipped)
    problems: list[tuple[str, str]] = []  # (reason, what happened)
    start = len(session.stdout)
    ids: list[str] = []
    unanswered = 0
    silent: list[tuple[str, str, Any, str]] = []
    stop_at = time.monotonic() + min(window * (max(1.0, len(calls) / BASE_CALLS) + SPARE_WINDOWS), MAX_SECONDS)
    much_from = next((n for n, (_t, param, args, _k) in enumerate(calls) if _asks_for_much(args[param])), len(calls))
    much_deadline = 0.0
    for first in [*range(0, much_from, CHUNK), *range(much_from, len(calls), CHUNK)]:  # the pipe drained between
        # each chunk has its own window, so a call that is never answered costs one window, not the rest of the fuzz;
        # the calls that ask for much (last) share one window
        if first < much_from:
            deadline = min(time.monotonic() + window, stop_at)
        else:
            deadline = much_deadline = much_deadline or min(time.monotonic() + window, stop_at)
        chunk = list(range(first, min(first + CHUNK, much_from if first < much_from else len(calls))))
        blob = b"".join(json.dumps({"jsonrpc": "2.0", "id": f"hb-fuzz-{n}", "method": "tools/call",
                                    "params": {"name": calls[n][0], "arguments": calls[n][2]}}).encode() + b"\n"
                        for n in chunk)
        if not session.send_raw(blob, timeout=max(0.5, deadline - time.monotonic())):
            problems.append(("stopped_reading", f"the server stopped reading stdin during the fuzz (after {first} calls)"))
            break
        for n in chunk:
            ids.append(f"hb-fuzz-{n}")
            try:  # a stray non-JSON line is judged below; it does not cut the wait for the answers short
                session.wait_for_id(f"hb-fuzz-{n}", timeout=max(0.05, deadline - time.monotonic()), garbage_grace=window)
            except WireTimeout as exc:
                unanswered += 1
                name, param, args, _ = calls[n]
                silent.append((name, param, args.get(param), str(exc)))
        if unanswered > MAX_UNANSWERED or time.monotonic() >= stop_at:
            break
    serving = True
    try:
        ask(session, "hb-fuzz-end", "ping", timeout=target.timeout)
    except WireTimeout as exc:
        serving = False
        problems.append(("stopped_serving", f"the server stopped serving after the fuzz: {exc}"))
    for name, param, value, why in silent:
        shown = f"{name}({param}={compact(value, 60)})"
        if serving and _asks_for_much(value):  # still serving: it may be doing what it was asked, a lot of it
            skipped.append(f"not checked: {shown} got no answer in time, but the server went on serving: a tool "
                           f"asked for {compact(value, 30)} (seconds, steps, items) may be slow by design")
        else:
            problems.append(("fuzzed_call_unanswered", f"{shown}: {why}"))
    time.sleep(0.1)
    answers = responses(session.stdout[start:])
    for rid in ids:
        count = sum(1 for a in answers if a.get("id") == rid)
        if count > 1:
            problems.append(("fuzzed_call_answered_twice", f"{rid}: {count} answers"))
    junk = [m for m in session.stdout[start:] if not is_jsonrpc_message(m.value)]
    if junk:
        problems.append(("not_jsonrpc_on_stdout",
                         f"{len(junk)} stdout line(s) written during the fuzz are not JSON-RPC messages: "
                         f"{junk[0].line.text[:120]}"))
    evidence = [f"{len(ids)} of {len(calls)} fuzzed tools/call requests sent, to {len(tools)} tool(s)", *skipped]
    if problems:
        return failed(problems[0][0], f"{len(problems)} problem(s) under a bounded fuzz",
                      *listed(text for _reason, text in problems), *evidence)
    left_out = f" ({len(unreadable)} fuzz value(s) left out: frames carrying them are unreadable to it)" if unreadable else ""
    slow = sum(1 for row in skipped if row.startswith("not checked: "))
    answered = f"{len(ids) - slow} of {len(ids)} fuzzed calls each got one answer ({slow} not checked: slow by design?)" \
        if slow else f"{len(ids)} fuzzed calls each got one answer"
    return passed(f"{answered}; stdout stayed JSON-RPC and serving went on{left_out}", *evidence)
