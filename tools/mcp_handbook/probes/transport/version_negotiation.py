"""``initialize`` echoes a revision the server supports and never one it does not.

A client that asked for a revision and got the same one back believes the server speaks it; an echoed
revision the server does not support makes both sides talk past each other, and an unsupported request
answered with an old revision (instead of the newest the server has) needlessly downgrades the session.
A session negotiates once, so the probe starts one server per question, all at once.
"""

from __future__ import annotations

import re
import time

from ..registry import probe
from ..support import (
    KNOWN_REVISIONS, LATEST_LEGACY, MODERN_REVISION, compact, failed, listed, Finding, passed, send_request, silence_reason,
    Target,
    WireTimeout,
)
from ._common import control_silence, init_params

REASONS = {
    "echoed_unsupported": "an unsupported revision was echoed back as if the server spoke it",
    "refused_initialize": "initialize was refused instead of answered with a revision the server supports",
    "initialize_unanswered": "initialize asking for a revision was never answered, though a plain initialize is",
    "not_a_revision": "the protocolVersion answered is not a revision string",
    "supported_not_echoed": "a revision the server supports was answered with another one",
    "fallback_not_latest": "an unsupported revision was answered with an older revision than the newest the server supports",
}

_Problem = tuple[str, str]
"""(reason, what happened): the reason is one of REASONS, or generic for an initialize never answered."""


def _ask_versions(target: Target, versions: tuple[str, ...], offered: dict[str, str],
                  problems: list[_Problem], evidence: list[str]) -> None:
    """One server per question (a session negotiates once), started together; record each answer. A server that
    exited before answering while its siblings ran is asked again alone: copies of one command started together
    can fight over what one copy owns (mcp-server-duckdb's database file is locked by the first), which no host
    that starts one copy would meet."""
    exited = _ask(target, versions, offered, problems, evidence, together=True)
    if exited:
        _ask(target, exited, offered, problems, evidence, together=False)


def _ask(target: Target, versions: tuple[str, ...], offered: dict[str, str], problems: list[_Problem],
         evidence: list[str], *, together: bool) -> tuple[str, ...]:
    """Ask each version on a server of its own, all started at once when ``together``, else one after another;
    return the versions whose server exited unanswered while others ran (to ask again alone)."""
    exited: list[str] = []
    pending = [versions] if together else [(v,) for v in versions]
    for batch in pending:
        sessions = {v: target.start() for v in batch}
        rids = {v: send_request(s, "initialize", init_params(v)) for v, s in sessions.items()}
        deadline = time.monotonic() + 2 * target.timeout  # the servers start at once and compete for the CPU
        for version, session in sessions.items():
            try:
                response = session.wait_for_id(rids[version], timeout=max(0.2, deadline - time.monotonic()))
            except WireTimeout as exc:
                if together and len(batch) > 1 and silence_reason(session) == "server_exited":
                    exited.append(version)
                else:
                    problems.append((silence_reason(session), f"initialize({version!r}): no answer ({exc})"))
                continue
            finally:
                session.close(grace=0.2)
            _record(version, response, offered, problems, evidence)
    return tuple(exited)


def _record(version: str, response: dict, offered: dict[str, str], problems: list[_Problem],
            evidence: list[str]) -> None:
    result = response.get("result")
    got = result.get("protocolVersion") if isinstance(result, dict) else None
    evidence.append(f"initialize({version}) -> {got if got else compact(response, 140)}")
    if not isinstance(result, dict):
        problems.append(("refused_initialize",
                         f"initialize({version!r}) was refused instead of answered with a version the server supports"))
    elif not isinstance(got, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", got):
        problems.append(("not_a_revision", f"initialize({version!r}) answered protocolVersion {got!r}, not a revision string"))
    else:
        offered[version] = got


def _verdict(target: Target, problems: list[_Problem], evidence: list[str]) -> Finding:
    """FAIL for the first problem that says something about negotiation; when every one is silence, generic
    only if the server does not answer a plain initialize either."""
    reason = next((r for r, _ in problems if r in REASONS), "") or control_silence(target) or "initialize_unanswered"
    return failed(reason, f"{len(problems)} negotiation problem(s)", *listed(text for _, text in problems), *evidence)


def _known_answer(target: Target, offered: dict[str, str], evidence: list[str]) -> tuple[str, ...]:
    """The revisions still to ask: the one the auditor's preflight already asked for (:data:`LATEST_LEGACY`, on a
    fresh server of the same command, :attr:`~..target.Target.opening`) is taken from its answer, a server spared."""
    got = (target.opening or {}).get("protocolVersion") if not target.modern else None
    if isinstance(got, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", got):
        offered[LATEST_LEGACY] = got
        evidence.append(f"initialize({LATEST_LEGACY}) -> {got} (the audit's first handshake)")
        return tuple(v for v in KNOWN_REVISIONS if v != LATEST_LEGACY)
    return KNOWN_REVISIONS


@probe("version_negotiation", "supported versions are echoed, unsupported ones answered with a supported one",
       over_http=True, reasons=REASONS, long=True)
def version_negotiation(target: Target) -> Finding:
    """Initialize with unsupported and with known revisions: supported ones are echoed, others never are."""
    bogus = ("1999-01-01", MODERN_REVISION)  # older than any revision; newer than any with a handshake
    offered: dict[str, str] = {}
    problems: list[_Problem] = []
    evidence: list[str] = []
    _ask_versions(target, bogus + _known_answer(target, offered, evidence), offered, problems, evidence)
    for version in bogus:
        if offered.get(version) == version:
            problems.append(("echoed_unsupported",
                             f"the unsupported version {version!r} was echoed: the client now believes the server speaks it"))
    supported = {v for v in offered.values() if v not in bogus}
    for version in KNOWN_REVISIONS:
        if version in supported and offered.get(version, version) != version:
            problems.append(("supported_not_echoed", f"{version} is supported (the server offered it) but "
                             f"initialize({version!r}) was answered with {offered[version]!r}"))
    fallbacks = {offered[v] for v in bogus if v in offered}
    if supported and fallbacks and min(fallbacks) < max(supported):
        problems.append(("fallback_not_latest", f"an unsupported version was answered with {min(fallbacks)}, not the "
                         f"latest the server supports ({max(supported)})"))
    if problems:
        return _verdict(target, problems, evidence)
    return passed(f"unsupported versions answered with {', '.join(sorted(fallbacks))}; "
                  f"supported ones ({', '.join(sorted(supported))}) echoed", *evidence)
