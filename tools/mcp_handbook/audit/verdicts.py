"""The engine's last word on each probe's finding: not believed when the server's stdout could not all be read,
the canary's sightings added and the canary masked, and, for a server never met, what the preflight saw.

Apart from the engine's running of probes: each of these is a plain function of a finding and what the audit saw."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..probes.support import GENERIC_REASONS, Finding, Target, failed, mask, not_applicable
from .plan import DOES_NOT_APPLY, NOT_CHECKED
from .preflight import ServerFacts
from .target import AuditTarget


def defect(target: AuditTarget) -> str:
    """What made one of the target's sessions unreadable as protocol (a flood, JSON nested too deep), or ""."""
    return next((d for s in target.sessions if (d := getattr(s, "defect", ""))), "")


def trouble(target: AuditTarget) -> str:
    """Why what a probe saw cannot be trusted to judge by: a :func:`defect`, or a line too long to read."""
    return defect(target) or next((u for s in target.sessions if (u := getattr(s, "unreadable", ""))), "")


def not_believed(finding: Finding, target: AuditTarget) -> Finding:
    """A FAIL met on a session whose stdout could not all be read. After a :func:`defect` nothing it saw can be
    trusted: N/A, not checked, with the cause (the FAIL the probe gave kept as evidence). After one line too long to
    read, only a FAIL for want of an answer (a generic reason) is not checked; a FAIL the probe judged on what it
    could see stands, with a note of the line it could not."""
    cause = trouble(target)
    if finding.status != "FAIL" or not cause:
        return finding
    if defect(target) or finding.reason in GENERIC_REASONS:
        return not_applicable(f"not checked: {cause}", f"the probe, unable to read it, said FAIL: {finding.summary}",
                              *finding.evidence)
    return replace(finding, evidence=(f"note: {cause}; an answer in it was not seen", *finding.evidence))


STDOUT_PROBE = "stdout_jsonrpc_only"
"""The probe of TRN-001 (stdout carries JSON-RPC messages only): the one rule a :func:`defect` breaks."""


def stdout_unreadable(cause: str, own: Finding | None, target: AuditTarget) -> Finding:
    """TRN-001's verdict when the server's stdout stopped being readable: its own probe's FAIL when it saw the
    same, else a FAIL that names the cause."""
    if own is not None and own.status == "FAIL" and own.reason == "non_jsonrpc_stdout":
        return own
    seen = next((s for s in target.sessions if getattr(s, "defect", "")), target.sessions[-1] if target.sessions else None)
    rows = tuple(seen.transcript(limit=6)) if seen is not None else ()
    return failed("non_jsonrpc_stdout", f"stdout stopped carrying messages a client can read: {cause}; the audit "
                  "stopped there", *rows)


def na_kind(finding: Finding) -> str:
    """Which N/A a probe's verdict is: *does not apply* when the probe saw the rule's condition fail (its summary
    says ``does not apply:``, as a 2026-07-28 probe does for a server that refuses ``server/discover``), else
    *not checked*; ``""`` for a PASS or FAIL."""
    if finding.status != "N/A":
        return ""
    return DOES_NOT_APPLY if finding.summary.startswith("does not apply:") else NOT_CHECKED


def with_canary(finding: Finding, name: str, sightings: list[str]) -> Finding:
    """Add where the canary came back during this probe to its evidence; the rule's own probe judges it."""
    own = [s.split(": ", 1)[1] for s in sightings if s.startswith(f"{name}: ")]
    if not own:
        return finding
    return replace(finding, evidence=(*finding.evidence, *(f"canary secret seen in {s}" for s in own[:3])))


def masked(finding: Finding, target: Target) -> Finding:
    """The finding with the canary secret masked wherever it was quoted (a probe's or the preflight's): no
    worksheet or console shows it."""
    return replace(finding, summary=mask(finding.summary, target), evidence=tuple(mask(e, target) for e in finding.evidence))


def framing_seen(facts: ServerFacts) -> Finding | None:
    if not facts.stdout_garbage:
        return None
    return failed("non_jsonrpc_stdout", f"before any answer the server wrote stdout line(s) that are not JSON-RPC "
                  f"messages: {facts.problem}", *facts.stdout_garbage)


PREFLIGHT_VERDICTS: dict[str, Callable[[ServerFacts], Finding | None]] = {
    "stdout_jsonrpc_only": framing_seen,
}
"""Probes whose verdict the preflight already saw when the server could not be met: a table of plain functions,
each a Finding or None (nothing to say)."""


def from_preflight(name: str, facts: ServerFacts) -> Finding:
    """A server that never completed the handshake: what the preflight saw decides, else not checked."""
    judge = PREFLIGHT_VERDICTS.get(name)
    return (judge(facts) if judge else None) or not_applicable(f"not checked: {facts.describe()}")
