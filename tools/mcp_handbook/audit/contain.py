"""Run one probe so that nothing it does can take the audit down or hold it up.

Probes are written by many hands and meet servers nobody here wrote, so the
auditor assumes any of them may raise, may wait far longer than it should,
or may try a tool call it should not. Each probe runs on its own daemon
thread against its own :class:`AuditTarget`; the scheduler watches the clock
and, at the deadline, kills the target's process groups, which ends every
wait the probe is blocked in. Whatever the probe does afterwards is ignored.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from ..probes.registry import ProbeFn
from ..probes.support import Finding, failed, not_applicable
from ..wire import WireTimeout
from .guard import BlockedToolCall
from .share import NotShared
from .target import AuditTarget


def _tail(target: AuditTarget, *, rows: int = 8) -> tuple[str, ...]:
    """The end of the last server conversation: what the server was doing when things went wrong."""
    return tuple(target.sessions[-1].transcript(limit=rows)) if target.sessions else ()


def verdict(run: ProbeFn, target: AuditTarget) -> Finding:
    """Call the probe and turn anything it does into a Finding (as the verifier does: a raise is a FAIL)."""
    try:
        finding = run(target)
    except BlockedToolCall as exc:
        if not target.guard.calls:
            return not_applicable(f"not checked: --no-tool-calls ({exc})", *_tail(target))
        return not_applicable(f"not checked: the probe tried a tool call the auditor does not make ({exc})", *_tail(target))
    except WireTimeout as exc:
        return failed("no_answer", f"the server did not answer: {exc}", *_tail(target))
    except (Exception, SystemExit) as exc:  # a probe must never take the auditor down with it
        return failed("probe_error", f"the probe could not finish against this server: {type(exc).__name__}: {exc}", *_tail(target))
    if not isinstance(finding, Finding):
        return failed("probe_error", f"the probe returned {type(finding).__name__}, not a finding")
    if target.guard.blocked:
        names = ", ".join(sorted(set(target.guard.blocked)))
        why = ("the audit ran with --no-tool-calls" if not target.guard.calls
               else "not read-only; name them with --allow-tool-calls")
        return not_applicable(
            f"not fully checked: the auditor blocked calls to {names} ({why})",
            f"the probe, without those calls, said {finding.status}: {finding.summary}", *finding.evidence,
        )
    return finding


@dataclass(slots=True)
class Contained:
    """One probe on its own thread, with a deadline the scheduler enforces."""

    name: str
    run: ProbeFn
    target: AuditTarget
    limit: float
    """Seconds the probe may take, server shutdown included."""
    started: float = 0.0
    ended: float = 0.0
    result: Finding | None = None
    stopped: str = ""
    """Why the auditor stopped the probe before it returned, when it did."""
    killed: bool = False
    """The auditor killed the probe's servers; the scheduler no longer waits for its thread."""
    unshared: str = ""
    """Why the probe, run on the shared session (:mod:`.share`), asked to be run on a server of its own; "" when not."""
    finished: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        self.started = time.monotonic()
        threading.Thread(target=self._body, name=f"audit-probe-{self.name}", daemon=True).start()

    def _body(self) -> None:
        try:
            finding: Finding | None = verdict(self.run, self.target)
        except NotShared as exc:  # a probe on the shared session needs a server of its own: the engine runs it again
            finding, self.unshared = None, str(exc) or "it asked for more than reading"
        with self.lock:
            if not self.stopped:
                self.result = finding
        try:
            self.target.wind_down()
        finally:
            self.ended = time.monotonic()
            self.finished.set()

    @property
    def done(self) -> bool:
        return self.finished.is_set()

    def overdue(self, now: float) -> bool:
        return not self.done and now - self.started > self.limit

    def stop(self, reason: str) -> None:
        """Kill the probe's servers now; the probe's own verdict still counts if it came first."""
        with self.lock:
            if self.result is None:
                self.stopped = reason
        self.killed = True
        self.target.kill()
        if not self.ended:
            self.ended = time.monotonic()

    @property
    def seconds(self) -> float:
        return max(0.0, (self.ended or time.monotonic()) - self.started)

    def finding(self) -> Finding:
        if self.result is not None:
            return self.result
        why = self.stopped or "the probe did not finish"
        return not_applicable(f"no verdict: {why}; its server processes were killed", *_tail(self.target))
