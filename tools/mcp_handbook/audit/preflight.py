"""Meet the server once before any probe: does it start, answer ``initialize``, list its tools?

What the auditor learns here decides how the rest runs: which tools the
guard lets probes call, how long a probe may wait for a slow starter, and
whether tool-calling probes can run at all. The handshake is done the way
every probe does it, under the same containment, so a hostile server is
met here first and reported on in plain words.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..probes.support import (
    MODERN_REVISION, Finding, Target, WireTimeout, compact, discover, failed, is_jsonrpc_message, list_tools, mask, passed,
)
from ..wire import WireSession
from ..wire_reading import FLOOD_LINES, MAX_LINE_BYTES


@dataclass(slots=True)
class ServerFacts:
    """What the handshake showed."""

    answered: bool = False
    """The server answered ``initialize`` with a result."""
    startup: float = 0.0
    """Seconds from spawn to the ``initialize`` answer."""
    server_info: dict[str, Any] = field(default_factory=dict)
    protocol_version: str = ""
    capabilities: dict[str, Any] = field(default_factory=dict)
    """The ``capabilities`` the server declared in its ``initialize`` result."""
    opening: dict[str, Any] = field(default_factory=dict)
    """The handshake's result in the era the probes speak (:attr:`era`): ``initialize``'s, else ``server/discover``'s."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    tools_listed: bool = False
    paged: bool = False
    """``tools/list`` handed out a ``nextCursor`` (the server pages its lists)."""
    problem: str = ""
    """What went wrong, in one sentence, when the handshake did not complete."""
    stdout_garbage: list[str] = field(default_factory=list)
    """The first stdout lines that were not JSON-RPC messages (a banner, a log line, a pretty-printed answer)."""
    stdout_lines: int = 0
    transport: str = "stdio"
    """``stdio``, or ``http`` for an audit by URL (Streamable HTTP)."""
    url: str = ""
    eras: tuple[str, ...] = ()
    """What the server answered: ``2025-11-25 (initialize)``, ``2026-07-28 (server/discover)``."""
    legacy: bool = False
    """It answered ``initialize`` (the handshake era)."""
    modern: bool | None = None
    """It answered ``server/discover`` (2026-07-28); None when it was not asked."""
    defect: str = ""
    """What made the server's stdout unreadable during the preflight (a flood, JSON nested too deep), in one
    sentence; "" when nothing did. The audit then runs no probe that needs that stdout."""
    defect_probe: str = ""
    """The probe whose rule :attr:`defect` breaks, with :attr:`defect_reason`; "" for TRN-001's (stdout unreadable)."""
    defect_reason: str = ""
    era: str = "handshake"
    """The era the probes speak: ``handshake`` when the server answered ``initialize``, else ``2026-07-28``
    (rules about one era run their own requests whatever this is)."""

    def describe(self) -> str:
        if not self.answered:
            return f"the server did not complete the handshake: {self.problem}"
        info = self.server_info
        name = f"{info.get('name', '?')} {info.get('version', '')}".strip()
        tools = f"{len(self.tools)} tool(s)" if self.tools_listed else f"tools not listed ({self.problem})"
        return f"{name}, answered {' and '.join(self.eras)} in {self.startup:.1f} s, {tools}"

    def transport_text(self) -> str:
        """How the server was reached, and which eras it answered there."""
        eras = ", ".join(self.eras) or "no era answered"
        where = f"Streamable HTTP at {self.url}" if self.transport == "http" else "stdio"
        return f"{where}; answered: {eras}"


def _what_happened(session: WireSession, exc: Exception, target: Target) -> str:
    """A hostile server's behaviour, named: crashed, flooded, wrote garbage, or stayed silent. What it wrote is
    quoted with the canary masked before any cut: this sentence goes to the console and the worksheet."""
    garbage = [m for m in session.stdout if m.value is None]
    if session.defect:  # a flood, JSON nested too deep: named by the reader that saw it
        return "it" + mask(session.defect, target).removeprefix("the server") if session.defect.startswith("the server") \
            else mask(session.defect, target)
    code = session.wait_exit(0.2)
    if code is not None:
        err = [ln.text for ln in session.stderr_lines][-1:]
        last = f"; last stderr line: {mask(err[0], target)[:200]}" if err else ""
        return f"it exited with code {code} before answering{last}"
    huge = [m for m in garbage if m.line.size > MAX_LINE_BYTES]
    if huge:
        return f"it answered with a {huge[0].line.size:,}-byte line, longer than the {MAX_LINE_BYTES:,} bytes the auditor reads as one message"
    if len(garbage) > FLOOD_LINES:
        return f"it flooded stdout with {len(garbage):,} non-JSON lines instead of an answer (first: {mask(garbage[0].line.text, target)[:80]!r})"
    if garbage:
        return f"it wrote {len(garbage)} non-JSON line(s) to stdout instead of an answer (first: {mask(garbage[0].line.text, target)[:120]!r})"
    return f"no answer ({exc})"


def _note_stdout(facts: ServerFacts, session: WireSession, target: Target) -> None:
    lines = session.stdout
    facts.stdout_lines = len(lines)
    facts.stdout_garbage = [f"<<< {mask(m.line.text, target)[:200]}" for m in lines if not is_jsonrpc_message(m.value)][:5]


def handshake(facts: ServerFacts, target: Target) -> Finding:
    """The preflight as a probe, the same over stdio and Streamable HTTP: ``initialize`` and ``tools/list`` (the
    handshake era), then ``server/discover`` on a session of its own (2026-07-28); record in ``facts`` which eras
    the server answered, who it says it is and its tools, listed in the era the probes will speak (:attr:`era`).

    A stdio server that says nothing at all to ``initialize`` is reported at once (it is not asked again); one
    that refuses ``initialize`` may be a 2026-07-28-only server, so it is asked ``server/discover``."""
    facts.transport, facts.url = target.transport, target.url or ""
    session = target.start()
    began = time.monotonic()
    try:
        response = session.initialize(timeout=target.timeout)
    except WireTimeout as exc:
        if isinstance(session, WireSession):
            facts.problem = _what_happened(session, exc, target)
            _note_stdout(facts, session, target)
            return failed("no_answer", facts.problem, *session.transcript(limit=8))
        response = {"error": str(exc)}  # an HTTP endpoint that refused initialize without a JSON-RPC answer
    result = response.get("result")
    evidence = session.transcript(limit=4)
    if isinstance(result, dict):
        facts.startup = time.monotonic() - began
        facts.answered = facts.legacy = True
        facts.opening = result
        _note_identity(facts, result)
        facts.eras += (f"{facts.protocol_version or '?'} (initialize)",)
    else:
        facts.problem = f"initialize was answered with an error: {compact(response.get('error'), 200)}"
    modern = _discover(facts, target, wait=_discover_wait(facts, target))
    if modern is not None:
        facts.startup = facts.startup or time.monotonic() - began
        evidence += modern.transcript(limit=2)
    if not facts.answered:
        if facts.transport == "http":
            facts.problem = "it answered neither initialize nor server/discover with a result (" + facts.problem + ")"
        return failed("no_answer", facts.problem, *evidence)
    facts.era = "handshake" if facts.legacy else MODERN_REVISION
    lister = session if facts.legacy else modern
    assert lister is not None  # answered: initialize (legacy) or server/discover (modern) did
    try:
        pages: list[dict[str, Any]] = []
        facts.tools = list_tools(lister, timeout=target.timeout, pages=pages)
        facts.paged = any(p.get("nextCursor") for p in pages)
        facts.tools_listed = True
    except WireTimeout as exc:
        facts.problem = f"tools/list was not answered: {exc}"
        _liveness(facts, lister, target)
        return failed("no_answer", facts.problem, *lister.transcript(limit=8))
    _liveness(facts, lister, target)
    return passed(facts.describe(), *evidence)


LIVENESS_CHECKS: tuple[tuple[str, dict[str, Any] | None], ...] = (("ping", None), ("hb/no-such-method", {}))
"""Two requests every server answers at once whatever it serves: ``ping`` (the specification: the receiver MUST
respond promptly) and a method nobody has (-32601)."""

LIVENESS_WAIT = 3.0
"""Seconds, at least, each liveness request waits (four times the server's start-up when that is longer): a server
that has just answered tools/list answers ping in milliseconds, and a silent one must not cost every probe's wait."""

SILENT = ("one_answer_per_request", "unanswered_request")
"""ERR-001 (answer every request): the rule a server that answers nothing after ``initialize`` breaks."""
INVENTED_IDS = ("echo_request_ids", "invented_id")
"""ERR-008 (echo every id): the rule a server that answers with ids it was never sent breaks."""


def _liveness(facts: ServerFacts, session: Any, target: Target) -> None:
    """Does the server answer ordinary requests at all after the handshake? When neither :data:`LIVENESS_CHECKS`
    request is answered, every probe would wait out its own timeouts on the same silence and report it as a FAIL of
    its own rule: record one :attr:`ServerFacts.defect` instead, blamed on the rule it breaks (answers under ids it
    was never sent: ERR-008; no answer at all, or stdout closed: ERR-001), and the audit stops there."""
    if facts.defect or not facts.legacy or not isinstance(session, WireSession):
        return  # over HTTP each request gets its own reply or an HTTP error: silence is not shared
    began = time.monotonic()
    wait = min(target.timeout, max(LIVENESS_WAIT, 4 * facts.startup))
    asked = []
    for n, (method, params) in enumerate(LIVENESS_CHECKS):
        rid = f"hb-alive-{n}"
        asked.append(rid)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        try:
            session.send(message)
            session.wait_for_id(rid, timeout=wait)
            return  # answered (a result or an error): the server is alive
        except WireTimeout:
            continue
    if session.defect:
        return  # the reader already named what is wrong (a flood, JSON too deep): the engine reports that
    waited = time.monotonic() - began
    since = began - session.started  # line times count from the session's start
    stray = [m.value.get("id") for m in session.stdout
             if isinstance(m.value, dict) and ("result" in m.value or "error" in m.value) and m.line.at >= since
             and m.value.get("id") not in asked]
    closed = session.wait_stdout_eof(0)
    if stray:
        facts.defect_probe, facts.defect_reason = INVENTED_IDS
        facts.defect = (f"it answers under ids it was never sent: asked {', '.join(map(repr, asked))}, got "
                        f"{', '.join(mask(repr(i), target)[:40] for i in stray[:3])}; no answer can be matched to its request")
    elif closed:
        facts.defect_probe, facts.defect_reason = SILENT
        facts.defect = "it closed its stdout after the handshake: no request after it can be answered"
    else:
        facts.defect_probe, facts.defect_reason = SILENT
        facts.defect = (f"it answers no request after the handshake{' but tools/list' if facts.tools_listed else ''}: "
                        f"ping and an unknown method went unanswered for {waited:.1f} s")


DISCOVER_WAIT = 3.0
"""Seconds a server that answered ``initialize`` is given to answer ``server/discover``: a handshake-only server
may ignore it, and that silence must not cost the whole wait."""


def _discover_wait(facts: ServerFacts, target: Target) -> float:
    """How long ``server/discover`` is waited for, on a server of its own started after ``initialize`` was answered:
    a server that took ``startup`` seconds to answer that gets as long again to start, on top of
    :data:`DISCOVER_WAIT` (a slow start under load is not taken for a handshake-only server's silence), never more
    than the whole wait. (Started alongside the first, a hostile server's flood or huge lines came twice at once.)"""
    if not facts.legacy:
        return target.timeout
    return min(target.timeout, DISCOVER_WAIT + facts.startup)


def _note_identity(facts: ServerFacts, result: dict[str, Any]) -> None:
    """Who the server says it is and what it declares, from an ``initialize`` (or shaped discover) result."""
    facts.protocol_version = str(result.get("protocolVersion", ""))
    server_info, capabilities = result.get("serverInfo"), result.get("capabilities")
    facts.server_info = server_info if isinstance(server_info, dict) else {}
    facts.capabilities = capabilities if isinstance(capabilities, dict) else {}


def _discover(facts: ServerFacts, target: Target, *, wait: float) -> WireSession | None:
    """Ask ``server/discover`` on a new session; the session when the server answers with a result, else None."""
    session = target.start()
    try:
        response = discover(session, timeout=wait)
    except WireTimeout:
        facts.modern = False
        return None
    result = response.get("result")
    if not isinstance(result, dict):
        facts.modern = False
        return None
    facts.modern = facts.answered = True
    facts.eras += ("2026-07-28 (server/discover)",)
    if not facts.legacy:
        facts.opening = result
        _note_identity(facts, result)
    return session
