"""The target a probe gets during an audit: a fresh workspace, a minimal environment, guarded pipes.

It is a :class:`~mcp_handbook.probes.Target`, so every probe runs unchanged;
what differs is what the auditor can do to it from outside the probe: refuse
to start another server once the probe's time is up, kill every server
process group the probe started (:meth:`AuditTarget.kill`), and refuse any
frame that would call a tool the user did not allow (:mod:`.guard`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..probes.http import end_sessions
from ..probes.http_session import HttpSession
from ..probes.support import Target, mask
from ..wire import Message, WireSession
from .guard import ACTING_METHODS, ToolCallGuard, listed_prompts, listed_tools, may_get_prompt

BASE_PATH = ("/usr/local/bin", "/usr/bin", "/bin")


class ProbeStopped(Exception):
    """The probe's time is up: the auditor starts no new server for it."""


def audit_env(workspace: Path, canary: str, *, program_dir: Path | None, tmp: Path) -> dict[str, str]:
    """Nothing inherited, so a server cannot leak a secret the user happens to have in their shell;
    plus a canary under two secret-looking names (the same names the verifier uses), so a leak shows."""
    path = [str(program_dir)] if program_dir else []
    path += [p for p in BASE_PATH if p not in path]
    return {
        "PATH": os.pathsep.join(path),
        "HOME": str(workspace),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HB_CANARY": canary,
        "API_TOKEN": canary,
    }


def guard_frame(guard: ToolCallGuard, data: bytes, seen: Iterable[Message]) -> None:
    """Pass one outgoing frame through the guard, with what the session's own listings said; a frame that names
    no acting method (:data:`ACTING_METHODS`) is not even parsed."""
    if any(m.encode() in data for m in ACTING_METHODS):
        values = [m.value for m in seen]
        guard.check(data, seen=listed_tools(values), prompts=listed_prompts(values))


class GuardedSession(WireSession):
    """A wire session whose every outgoing frame passes the tool-call guard first."""

    def __init__(self, argv: Sequence[str], *, cwd: Path, env: dict[str, str], pass_fds: Sequence[int], guard: ToolCallGuard,
                 marker: str | None = None, on_first_answer: Callable[[float], None] | None = None) -> None:
        self.guard = guard
        self.on_first_answer = on_first_answer
        """Told, once, how many seconds after its start this server first answered."""
        super().__init__(argv, cwd=cwd, env=env, pass_fds=pass_fds, marker=marker)

    def wait_for_id(self, rid: Any, *, timeout: float = 5.0, garbage_grace: float = 0.3) -> dict[str, Any]:
        answer = super().wait_for_id(rid, timeout=timeout, garbage_grace=garbage_grace)
        tell, self.on_first_answer = self.on_first_answer, None
        if tell is not None:
            tell(time.monotonic() - self.started)
        return answer

    def send_raw(self, data: bytes, *, timeout: float = 10.0) -> bool:
        guard_frame(self.guard, data, self.stdout)
        return super().send_raw(data, timeout=timeout)


@dataclass(slots=True)
class AuditTarget(Target):
    """A Target the auditor can stop from another thread."""

    guard: ToolCallGuard = field(default_factory=lambda: ToolCallGuard(allow=None))
    floor: float = 0.0
    """The wait for an answer once a server of this target has answered (the audit's probe wait); ``timeout``
    starts longer, for a first answer; 0: ``timeout`` stays as it is (:meth:`_answered`)."""
    crowding: float = 1.0
    """How many servers start per core at once during the audit (the wait is scaled by it as by start-up)."""
    closed: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def may_call(self, tool: dict[str, Any]) -> bool:
        return self.guard.calls and Target.may_call(self, tool)

    def may_request(self, method: str) -> bool:
        return self.guard.permits_method(method)

    def may_get_prompt(self, prompt: dict[str, Any]) -> bool:
        return may_get_prompt(prompt, self.guard.allow, calls=self.guard.calls)

    def start(self, *, pass_fds: Iterable[int] = (), extra_env: dict[str, str] | None = None) -> WireSession:
        env = {**self.env, **(extra_env or {})}
        with self.lock:  # held across the spawn, so kill() never misses a session being started
            if self.closed:
                raise ProbeStopped("the probe's time is up; no new server process is started")
            if self.transport == "http" and self.url is not None:
                return self.connect(before_send=self._guard_http)  # type: ignore[return-value]  # as Target.start
            if not self.argv:
                raise ProbeStopped("the server is audited by URL: the auditor starts no server process")
            session = GuardedSession(self.argv, cwd=self.workspace, env=env, pass_fds=tuple(pass_fds), guard=self.guard,
                                     marker=self.canary or None, on_first_answer=self._answered if self.floor else None)
            self.sessions.append(session)
        return session

    def _answered(self, seconds: float) -> None:
        """A server of this probe answered for the first time, ``seconds`` after it started: its start-up, measured
        now, under the load of now. The first answer was given a longer wait than the rest (the preflight timed one
        start-up, alone; probes start several at once, while the machine may be busier than it was then: a start
        that ran out that wait read as a FAIL of whatever rule the probe checks). Later answers get ``floor``, or
        three times this start-up, crowded, when that is longer; never more than the first answer got."""
        with self.lock:
            self.timeout = min(self.timeout, max(self.floor, 3 * seconds * self.crowding))

    def _guard_http(self, data: bytes, seen: list[Message]) -> None:
        """The tool-call guard for a session reached by URL: the same check as :class:`GuardedSession`'s."""
        guard_frame(self.guard, data, seen)

    def _close(self) -> list[WireSession | HttpSession]:
        with self.lock:
            self.closed = True
            return list(self.sessions)

    def kill(self) -> None:
        """Stop at once: SIGKILL every process group, then reap (used at a deadline)."""
        sessions = self._close()
        for s in sessions:
            s.kill_group()
        for s in sessions:
            s.close(grace=0.2)

    def wind_down(self) -> None:
        """The ordinary end of a probe: close stdin, then SIGTERM, then SIGKILL, group and all; over HTTP, end (DELETE)
        every session the probe opened, its raw requests' too, so a server audited by URL keeps none of them."""
        for s in self._close():
            s.close(grace=0.5)
        if self.transport == "http":
            end_sessions(self)

    def canary_sightings(self) -> list[str]:
        """Where the canary secret came back: ``stdout``/``stderr`` rows, excerpted around it.

        A session the probe itself sent the canary to is skipped: an echo of
        the probe's own input is the probe's business, not a leak.
        """
        seen: list[str] = []
        for number, session in enumerate(self.sessions, 1):
            sent = getattr(session, "_sent", ())  # the session's own record of what was written to stdin
            if any(self.canary in line.text for line in sent):
                continue
            rows = [("stdout", m.line.text) for m in session.stdout] + [("stderr", ln.text) for ln in session.stderr_lines]
            for stream, text in rows:
                if self.canary not in text:
                    continue
                masked = mask(text, self)  # before the cut: a cut must never leave part of a second occurrence
                at = masked.find("<CANARY>")
                seen.append(f"{stream} of server process {number}: …{masked[max(0, at - 80): at + 48]}…")
        return seen
