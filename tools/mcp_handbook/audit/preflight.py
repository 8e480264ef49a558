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

from ..probes.support import Finding, Target, WireTimeout, compact, failed, is_jsonrpc_message, list_tools, mask, passed
from ..wire import MAX_LINE_BYTES, WireSession

FLOOD_LINES = 1000
"""More non-JSON lines than this before any answer is a flood, not a banner."""


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
    """What the server answered over HTTP: ``2025-11-25 (initialize)``, ``2026-07-28 (server/discover)``."""

    def describe(self) -> str:
        if not self.answered:
            return f"the server did not complete the handshake: {self.problem}"
        info = self.server_info
        name = f"{info.get('name', '?')} {info.get('version', '')}".strip()
        if self.transport == "http":
            return f"{name}, answered {' and '.join(self.eras)} in {self.startup:.1f} s"
        tools = f"{len(self.tools)} tool(s)" if self.tools_listed else f"tools not listed ({self.problem})"
        return f"{name}, protocol {self.protocol_version or '?'}, answered initialize in {self.startup:.1f} s, {tools}"

    def transport_text(self) -> str:
        """How the server was reached, and which eras it answered there."""
        if self.transport != "http":
            return "stdio"
        eras = ", ".join(self.eras) or "no era answered"
        return f"Streamable HTTP at {self.url}; answered: {eras}"


def _what_happened(session: WireSession, exc: Exception, target: Target) -> str:
    """A hostile server's behaviour, named: crashed, flooded, wrote garbage, or stayed silent. What it wrote is
    quoted with the canary masked before any cut: this sentence goes to the console and the worksheet."""
    garbage = [m for m in session.stdout if m.value is None]
    if session.stdout_flooded:
        return "it flooded stdout (more than 32 MiB without an answer)"
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
    """The preflight as a probe: initialize, then tools/list; record what was seen in ``facts``."""
    session = target.start()
    began = time.monotonic()
    try:
        response = session.initialize(timeout=target.timeout)
    except WireTimeout as exc:
        facts.problem = _what_happened(session, exc, target)
        _note_stdout(facts, session, target)
        return failed("no_answer", facts.problem, *session.transcript(limit=8))
    facts.startup = time.monotonic() - began
    result = response.get("result")
    if not isinstance(result, dict):
        facts.problem = f"initialize was answered with an error: {compact(response.get('error'), 200)}"
        return failed("no_answer", facts.problem, *session.transcript(limit=8))
    facts.answered = True
    facts.server_info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {}
    facts.protocol_version = str(result.get("protocolVersion", ""))
    facts.capabilities = result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {}
    try:
        pages: list[dict[str, Any]] = []
        facts.tools = list_tools(session, timeout=target.timeout, pages=pages)
        facts.paged = any(p.get("nextCursor") for p in pages)
        facts.tools_listed = True
    except WireTimeout as exc:
        facts.problem = f"tools/list was not answered: {exc}"
        return failed("no_answer", facts.problem, *session.transcript(limit=8))
    return passed(facts.describe(), *session.transcript(limit=6))


def http_handshake(facts: ServerFacts, target: Target) -> Finding:
    """The preflight over Streamable HTTP: ``initialize`` (the handshake era), then a 2026-07-28 ``server/discover``;
    record which the server answered and who it says it is. A session the handshake opened is ended (DELETE)."""
    from ..probes.http import DISCOVER_HEADERS, discover_message, endpoint, initialize_message, row, send
    from ..probes.support import ProbeAbort

    facts.transport, facts.url = "http", target.url or ""
    began = time.monotonic()
    evidence: list[str] = []
    try:
        point = endpoint(target)
        answer = send(target, point, initialize_message())
        evidence.append(row(point, "initialize", {}, answer))
        message = answer.message() or {}
        result = message.get("result")
        if 200 <= answer.status < 300 and isinstance(result, dict):
            facts.startup = time.monotonic() - began
            facts.answered = True
            facts.protocol_version = str(result.get("protocolVersion", ""))
            facts.eras += (f"{facts.protocol_version or '?'} (initialize)",)
            facts.server_info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {}
            facts.capabilities = result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {}
            session_id = answer.headers.get("mcp-session-id")
            if session_id:
                send(target, point, None, {"Mcp-Session-Id": session_id}, method="DELETE")
        answer = send(target, point, discover_message(2), DISCOVER_HEADERS)
        evidence.append(row(point, "server/discover", DISCOVER_HEADERS, answer))
        result = (answer.message() or {}).get("result")
        if 200 <= answer.status < 300 and isinstance(result, dict):
            facts.startup = facts.startup or time.monotonic() - began
            facts.answered = True
            facts.eras += ("2026-07-28 (server/discover)",)
            if not facts.server_info:
                meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
                info = meta.get("io.modelcontextprotocol/serverInfo", result.get("serverInfo"))
                facts.server_info = info if isinstance(info, dict) else {}
    except ProbeAbort as stop:
        facts.problem = stop.finding.summary
        return failed("no_answer", facts.problem, *evidence)
    if not facts.answered:
        facts.problem = "it answered neither initialize nor server/discover with a result (" + "; ".join(evidence) + ")"
        return failed("no_answer", facts.problem, *evidence)
    return passed(facts.describe(), *evidence)
