"""What one probe of an audit saw decides another rule's verdict too.

A probe judges the sessions it drove itself, yet some breaches show only on paths another probe drives: the
Python SDK reports a malformed line as a ``notifications/message`` whether or not it advertised ``logging``
(OPS-003), and the probe watching children (SEC-003) is the one that sees the server's secret handed to a git
child (SEC-009). A careful reviewer holding both observations would not sign the PASS. Each entry of
:data:`CROSS_CHECKS` is a plain function over the probe's own finding and what the whole audit saw; it returns the
finding unchanged, or a FAIL whose evidence names the probe and what it saw, with the probe's own verdict kept
below it. A FAIL is never turned into anything else: what a probe saw itself stands.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..probes.support import Finding, compact, failed, listed
from .preflight import ServerFacts

MAX_SEEN = 6
"""Sightings quoted in a finding's evidence; the count in its summary covers them all."""


@dataclass(frozen=True, slots=True)
class Seen:
    """What every probe of one audit saw: its verdict and the sessions it drove (the preflight's under
    ``preflight``)."""

    facts: ServerFacts
    verdicts: Mapping[str, Finding]
    sessions: Mapping[str, Sequence[Any]]


def _log_messages(seen: Seen) -> list[tuple[str, dict[str, Any]]]:
    """``(probe, notification)`` for each ``notifications/message`` any session of the audit received."""
    found = []
    for name, sessions in seen.sessions.items():
        for session in sessions:
            for message in getattr(session, "stdout", ()):
                value = message.value
                if isinstance(value, dict) and value.get("method") == "notifications/message" and "id" not in value:
                    found.append((name, value))
    return found


def unadvertised_log_messages(own: Finding, seen: Seen) -> Finding:
    """OPS-003: log notifications without the ``logging`` capability, whichever probe's session received them."""
    if own.status == "FAIL" or not seen.facts.answered or "logging" in seen.facts.capabilities:
        return own
    logs = _log_messages(seen)
    if not logs:
        return own
    probes = list(dict.fromkeys(name for name, _ in logs))
    rows = [f"during {name}: <<< {compact(value, 200)}" for name, value in logs]
    return failed("served_not_advertised", f"the server sent {len(logs)} notifications/message without advertising the "
                  f"logging capability (seen by this audit's {', '.join(probes[:4])}"
                  f"{' …' if len(probes) > 4 else ''})", *listed(rows, MAX_SEEN),
                  f"capabilities: {compact(seen.facts.capabilities, 200)}",
                  f"this probe's own session: {own.status}: {own.summary}", *own.evidence)


CHILD_PROBE = "child_env_allowlist"
"""SEC-003's probe: it watches the children a server starts, with the audit's canary in the server's environment."""
CHILD_REACHED = "canary_reached_child"
SECRET_ROW = ": the server's secret in its environment"


def secret_in_child(own: Finding, seen: Seen) -> Finding:
    """SEC-009 "no secret handed to a child process": SEC-003's probe of this audit saw the canary in a child's
    environment. The observation is cited, not made again."""
    child = seen.verdicts.get(CHILD_PROBE)
    if own.status == "FAIL" or child is None or child.status != "FAIL" or child.reason != CHILD_REACHED:
        return own
    children = [row for row in child.evidence if SECRET_ROW in row]
    named = sorted({row.split(" ", 2)[1] for row in children if row.startswith("child ")})
    what = (f"child {', '.join(named)} started with the canary" if named else "a child started with the canary")
    return failed(CHILD_REACHED, f"the server's secret was handed to a child process: {what}, see SEC-003 "
                  f"({child.summary})", *listed(children or [child.summary], MAX_SEEN),
                  f"this probe's own session: {own.status}: {own.summary}", *own.evidence)


CROSS_CHECKS: dict[str, Callable[[Finding, Seen], Finding]] = {
    "advertise_capabilities": unadvertised_log_messages,
    "no_secret_in_output": secret_in_child,
}
"""Probe -> the check that reads what the rest of the audit saw for it."""


def with_what_others_saw(verdicts: Mapping[str, Finding], seen: Seen) -> dict[str, Finding]:
    """Every verdict, each probe of :data:`CROSS_CHECKS` judged again on what the whole audit saw."""
    return {name: CROSS_CHECKS[name](finding, seen) if name in CROSS_CHECKS else finding
            for name, finding in verdicts.items()}
