"""A probe's verdict: the :class:`Finding`, the three ways to make one, and :class:`ProbeAbort` to return one early.

A FAIL carries a *reason* from the probe's own vocabulary or one of the generic reasons (``mcp_handbook.reasons``),
which no WRONG block may prove with."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Status = Literal["PASS", "FAIL", "N/A"]


@dataclass(frozen=True, slots=True)
class Finding:
    """A probe's verdict with the evidence that shows it."""

    status: Status
    """PASS (the rule is kept), FAIL (broken) or N/A (the probe could not apply)."""
    summary: str
    """One sentence a reviewer reads first."""
    evidence: tuple[str, ...] = ()
    """Transcript rows (``>>>`` sent, ``<<<`` stdout, ``err`` stderr) and observations."""
    reason: str = ""
    """For a FAIL: why, as a code from the probe's own vocabulary or one of :data:`GENERIC_REASONS`."""


def passed(summary: str, *evidence: str) -> Finding:
    return Finding("PASS", summary, tuple(evidence))


def failed(reason: str, summary: str, *evidence: str) -> Finding:
    return Finding("FAIL", summary, tuple(evidence), reason)


def not_applicable(summary: str, *evidence: str) -> Finding:
    return Finding("N/A", summary, tuple(evidence))


MAX_LISTED = 40
"""Rows of one kind a finding lists at most (a problem per tool, a problem per call): a count in the summary is
matched by the rows listed, up to this bound, and the rest is said in words (:func:`listed`)."""


def listed(rows: Iterable[str], limit: int = MAX_LISTED) -> list[str]:
    """The rows up to ``limit``, then "… and N more" when some were left out: a summary that counts 13 must not be
    read beside a list that silently stops at 12."""
    rows = list(rows)
    if len(rows) <= limit:
        return rows
    return [*rows[:limit], f"… and {len(rows) - limit} more"]


def no_server_action(method: str) -> str:
    """The N/A summary of a probe that needs ``method``, which ``--no-tool-calls`` does not send."""
    return f"not checked: --no-tool-calls ({method} runs the server's own code, and the audit sends none)"


ROOT_UNKNOWN = ("not checked: root unknown (the folder the server serves was not given: audit with --root DIR, or "
                "put {workspace} in the server's command where it takes its folder)")


class ProbeAbort(Exception):
    """Raised anywhere inside a probe to return ``finding`` at once."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.summary)
        self.finding = finding
