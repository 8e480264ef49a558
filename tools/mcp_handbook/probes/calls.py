"""Calling tools without letting a slow one decide the verdict: :class:`ToolCalls`, for every probe that calls
tools (any gate). A rule about listings, errors or evaluation is not about latency."""

from __future__ import annotations

import time
from typing import Any

from .support import Finding, Target, WireSession, WireTimeout, handshake, not_applicable, silence_reason


MAX_UNANSWERED = 2
"""Tools that may leave a call unanswered before a probe stops calling: each costs a full wait and a fresh server."""


class ToolCalls:
    """Tools called on one session, where a call that is not answered within the wait sets its tool aside.

    A tool may be slow by design (it documents a long operation) or stuck; either way its silence is not what
    a rule about listings, errors or evaluation judges. Its tool is recorded as not checked, the session that
    still works on the call is closed, and a fresh one (started on demand) serves the next tool, so a server
    that answers one request at a time does not hold the others behind it. After :data:`MAX_UNANSWERED` such
    tools, no further call is made. Nothing here raises on a silent call; the caller reads :attr:`notes`."""

    def __init__(self, target: Target, *, wait: float, extra_env: dict[str, str] | None = None,
                 session: WireSession | None = None) -> None:
        self.target = target
        self.wait = wait
        self.extra_env = extra_env
        self.session = session
        self.unanswered: dict[str, str] = {}
        """Tool name -> why it was not checked."""
        self.skipped: set[str] = set()
        """Tools not called at all because too many others did not answer."""

    def open(self) -> WireSession:
        """The current session, started (handshake and all) when there is none."""
        if self.session is None:
            self.session, _ = handshake(self.target, extra_env=self.extra_env)
        return self.session

    def may_try(self, name: str) -> bool:
        """False for a tool that already went unanswered, and for every tool once too many did."""
        if name in self.unanswered:
            return False
        if len(self.unanswered) >= MAX_UNANSWERED:
            self.skipped.add(name)
            return False
        return True

    def call(self, name: str, arguments: Any, *, wait: float | None = None) -> dict[str, Any] | None:
        """The response to one ``tools/call``; None when the tool is set aside (now or before)."""
        answers = self.calls(name, [arguments], wait=wait)
        return answers[0] if answers else None

    def calls(self, name: str, arguments: list[Any], *, wait: float | None = None) -> list[dict[str, Any] | None]:
        """Send every call of one tool at once, then collect the answers before one deadline (None for no answer).
        A tool with any call unanswered is set aside; an empty list means it was not called."""
        if not arguments or not self.may_try(name):
            return []
        session = self.open()
        wait = self.wait if wait is None else wait
        sent = []
        for args in arguments:
            rid = session.new_id()
            session.send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": name, "arguments": args}})
            sent.append(rid)
        deadline = time.monotonic() + wait
        answers: list[dict[str, Any] | None] = []
        for rid in sent:
            try:
                answers.append(session.wait_for_id(rid, timeout=max(deadline - time.monotonic(), 0.05)))
            except WireTimeout:
                answers.append(None)
        if any(a is None for a in answers):
            self._set_aside(name, wait)
        return answers

    def _set_aside(self, name: str, wait: float) -> None:
        session, self.session = self.session, None
        assert session is not None
        if silence_reason(session) == "server_exited":
            self.unanswered[name] = f"not checked: {name}: the server exited during the call"
        elif session.stdout_flooded:
            self.unanswered[name] = f"not checked: {name}: the server flooded stdout during the call"
        elif any(m.value is None for m in session.stdout):
            self.unanswered[name] = f"not checked: {name}: the server wrote a line that is not JSON to stdout"
        else:
            self.unanswered[name] = f"not checked: {name} did not answer within {wait:g} s (slow by design?)"
        session.close(grace=0.2)  # it may still be working on the call; the next tool gets a fresh server

    @property
    def notes(self) -> list[str]:
        """One ``not checked: ...`` line per tool set aside, and one for the tools never called."""
        rows = list(self.unanswered.values())
        if self.skipped:
            rows.append(f"not checked: {', '.join(sorted(self.skipped)[:10])}: not called after "
                        f"{len(self.unanswered)} tools did not answer")
        return rows

    def not_checked(self, rest: str, *evidence: str) -> Finding:
        """N/A for a probe that judged no tool because some went unanswered: why each went unjudged, then ``rest``
        (what the others showed)."""
        return not_applicable("; ".join([*self.notes, rest]), *self.notes, *evidence)
