"""The audit: meet the server, run every automated rule's probe under a deadline, collect findings.

The probes are the verifier's own (the ``PROBES`` table, named by each rule's
``probe``), so an audit finding and a snippet's proof mean the same thing.
What the engine adds is safety: a fresh workspace and minimal environment per
probe, a tool-call guard, a deadline per probe, one for the whole audit, and
every server process group killed whatever happens, then every process the
server left outside its group (:mod:`..procs`). A server whose stdout stops
being readable as protocol (a flood, JSON nested too deep) is reported once,
on TRN-001, and the probes that needed that stdout are not run or not believed:
N/A, not checked, with that cause, never a FAIL each.

Speed, without changing what a probe sees: every target starts with the
preflight's tool listing (the same ``tools/list`` a fresh server answers), so
a probe that needs only the listing starts no server; the probes registered
``shares_session`` (readers) run one at a time in a lane of their own on one
shared server (:mod:`.share`), which takes one of the ``jobs`` slots while the
other probes run on fresh servers beside it; a reader that asks for more than
reading is run again at the head of the queue on a server of its own. The
shared server is started ahead, as soon as the queue is known. A probe that asks
the same questions as another waits for it and judges its answers, on its target
(:data:`.schedule.COMPANIONS`). The result counts the server processes started, by
what for (:attr:`.plan.AuditResult.starts`): where the time goes on a slow starter.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from .. import procs
from ..model import Corpus, Rule
from ..probes.registry import Probe
from ..probes.support import MODERN_REVISION, failed, mask, not_applicable
from ..proving.pool import AUDIT_SERVERS_PER_CORE, worker_count
from .applies import does_not_apply
from .contain import Contained
from .guard import ToolCallGuard
from .observed import Seen, with_what_others_saw
from .plan import DOES_NOT_APPLY, NOT_CHECKED, AuditOptions, AuditResult, RuleFinding
from .preflight import ServerFacts, handshake
from .schedule import queue_probes, run_queue
from .sdk_baseline import attribute
from .verdicts import (STDOUT_PROBE, defect, from_preflight, masked, na_kind, not_believed, stdout_unreadable,
                       with_canary)
from .workspaces import FreshTargets


class AuditError(Exception):
    """The audit cannot start (no command, a program that does not exist)."""


def resolve_command(command: Sequence[str]) -> tuple[list[str], Path | None]:
    """The command with its program made absolute, since the server runs in a temporary directory."""
    if not command:
        raise AuditError("no server command: put it after --, e.g. -- python -m my_server")
    program = command[0]
    found = shutil.which(program) if os.sep not in program else program
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise AuditError(f"{program}: no such program (not found on PATH, or not executable)")
    path = Path(found).absolute()
    return [str(path), *command[1:]], path.parent


def _jobs(options: AuditOptions) -> int:
    return worker_count(options.jobs, per_core=AUDIT_SERVERS_PER_CORE)


def _plan(corpus: Corpus, options: AuditOptions) -> dict[str, list[Rule]]:
    """Automated rules grouped by probe, so a probe shared by several rules runs once."""
    plan: dict[str, list[Rule]] = {}
    for rule in corpus.rules:
        if rule.check == "automated" and (options.rules is None or rule.id in options.rules):
            plan.setdefault(rule.probe, []).append(rule)
    return plan


def _preflight(targets: FreshTargets, options: AuditOptions, deadline: float) -> tuple[ServerFacts, Contained]:
    facts = ServerFacts()
    wait = options.wait * 3  # a first start may be slow (imports, caches); later starts are warm
    target = targets.make("preflight", wait=wait, guard=ToolCallGuard(allow=frozenset()), allow=frozenset())
    run = Contained("preflight", lambda t: handshake(facts, t), target, limit=min(wait * 2 + 5, deadline - time.monotonic()))
    run.start()
    while not run.done:
        if run.overdue(time.monotonic()):
            run.stop("the handshake did not finish in time")
            # the abandoned thread may still write to ``facts``: go on from a copy that says what happened
            return ServerFacts(problem=f"the handshake did not finish within {run.limit:.1f} s"), run
        run.finished.wait(0.02)
    if (read := defect(target)):  # what the reader saw wins over what the liveness check concluded from silence
        facts.defect, facts.defect_probe, facts.defect_reason = read, "", ""
    return facts, run


def run_audit(
    corpus: Corpus, command: Sequence[str], *, options: AuditOptions = AuditOptions(), probes: Mapping[str, Probe] | None = None,
) -> AuditResult:
    """Audit the stdio server ``command`` against every automated rule of ``corpus``."""
    if probes is None:
        from ..probes import PROBES
        probes = PROBES
    if options.url:
        if command:
            raise AuditError("give either --url or a server command after --, not both")
        argv: list[str] = []
        program_dir = None
    else:
        argv, program_dir = resolve_command(command)
    started = time.monotonic()
    deadline = started + options.timeout
    spared = {p.pid for p in procs.children()} if procs.is_subreaper() else set()
    # an abandoned probe or an escaped grandchild may still hold a file in there: never fail on cleanup
    with tempfile.TemporaryDirectory(prefix="hb-audit-", ignore_cleanup_errors=True) as tmp:
        targets = FreshTargets(Path(tmp), argv, program_dir, f"hb-canary-{secrets.token_hex(8)}", options.roots,
                           url=options.url, headers=options.headers)
        try:
            facts, pre = _preflight(targets, options, deadline)
            targets.share_listing(facts)
            _choose_era(facts, options.era)
            plan = _plan(corpus, options)
            elsewhere = {r.id: why for rules in plan.values() for r in rules if (why := does_not_apply(r, facts))}
            unseen = {r.id: why for name, rules in plan.items() for r in rules
                      if r.id not in elsewhere and (why := _unreachable(r, probes.get(name), facts))}
            runnable = {name: rules for name, rules in plan.items()
                        if any(r.id not in elsewhere and r.id not in unseen for r in rules)}
            if not facts.answered or facts.defect:  # every probe would meet the same wall again: report it once
                runnable = {}
            jobs = _jobs(options)
            queue, lane, verdicts = queue_probes(runnable, probes, targets, facts, options, jobs=jobs)
            if lane.waiting:
                lane.pool.start_ahead()  # its start-up overlaps the first probes' own
            runs, halted = run_queue(queue, jobs=jobs, deadline=deadline, budget=options.timeout, lane=lane)
        except BaseException:  # Ctrl-C, SIGTERM: the servers run in their own sessions and would live on
            targets.kill_all()
            targets.sweep(spared)
            raise
        stopped = mask(facts.defect if facts.answered else "", pre.target) or mask(halted, pre.target)
        for name in [*(run.name for run in queue), *lane.waiting, *lane.held.values()]:
            verdicts[name] = not_applicable(f"not checked: {stopped}" if stopped else
                                                f"not run: the audit's {options.timeout:g} s time budget ran out first")
        if not facts.answered:
            verdicts = {name: from_preflight(name, facts) for name in plan}
        canary = [f"{name}: {seen}" for name, run in [("preflight", pre), *runs.items()] for seen in run.target.canary_sightings()]
        for name, run in runs.items():
            verdicts[name] = not_believed(with_canary(run.finding(), name, canary), run.target)
        if facts.answered and not stopped:  # what one probe saw that another rule is about (:mod:`.observed`)
            seen = Seen(facts, dict(verdicts), {"preflight": pre.target.sessions,
                                                **{name: run.target.sessions for name, run in runs.items()}})
            verdicts = with_what_others_saw(verdicts, seen)
        if stopped:
            for name in plan:
                verdicts.setdefault(name, not_applicable(f"not checked: {stopped}"))
            if facts.defect_probe and not halted:  # the server went silent after the handshake: its own rule
                if facts.defect_probe in plan:
                    verdicts[facts.defect_probe] = failed(facts.defect_reason, f"{stopped}; the audit stopped there",
                                                          *pre.target.sessions[0].transcript(limit=8))
            elif STDOUT_PROBE in plan:
                own = runs.get(STDOUT_PROBE)
                verdicts[STDOUT_PROBE] = stdout_unreadable(stopped, own.finding() if own else None,
                                                            own.target if own else pre.target)
        verdicts = {name: masked(finding, pre.target) for name, finding in verdicts.items()}
        killed = targets.sweep(spared)
        unread = [u for target in targets.made for s in target.sessions if (u := getattr(s, "unreadable", ""))]
        findings = tuple(
            RuleFinding(rule, name, not_applicable(elsewhere[rule.id]), 0.0, na=DOES_NOT_APPLY) if rule.id in elsewhere
            else RuleFinding(rule, name, not_applicable(unseen[rule.id]), 0.0, na=NOT_CHECKED) if rule.id in unseen
            else RuleFinding(rule, name, verdicts[name], runs[name].seconds if name in runs else 0.0,
                             na=na_kind(verdicts[name]))
            for name, rules in plan.items() for rule in rules
        )
    result = AuditResult(tuple(argv) or (options.url or "",), facts, findings, tuple(canary), time.monotonic() - started,
                         options, stopped=stopped, unread=tuple(dict.fromkeys(unread)),
                         killed=tuple(mask(k, pre.target) for k in killed), starts=tuple(targets.starts().items()))
    return _with_sdk_baseline(corpus, result, probes, started)


def _with_sdk_baseline(corpus: Corpus, result: AuditResult, probes: Mapping[str, Probe], started: float) -> AuditResult:
    """Tell the SDK's defaults from the author's FAILs (:mod:`.sdk_baseline`); the audit's seconds include it."""
    return replace(attribute(corpus, result, probes, audit=run_audit), seconds=time.monotonic() - started)


STDIO_ONLY = ("not checked: stdio-only probe (it judges the server's process: its stderr, signals, stdin, environment "
              "or files; the audit reaches this server over HTTP only)")


HANDSHAKE_ONLY = ("not checked: handshake-era probe (it opens with initialize and uses ping, which 2026-07-28 removed; "
                  "the server answered only server/discover)")


def _unreachable(rule: Rule, probe: Probe | None, facts: ServerFacts) -> str:
    """Why the rule's probe cannot reach the server the way it was audited, or ``""``. Probes registered
    ``over_http`` judge only what the server answers, in either era; the others need the server's process (so not
    over HTTP) and speak the handshake era (so not to a server that answered only ``server/discover``)."""
    if probe is None or probe.over_http or "http" in rule.conditions:
        return ""
    if facts.transport == "http":
        return STDIO_ONLY
    return HANDSHAKE_ONLY if facts.answered and not facts.legacy else ""


ERAS = ("auto", "handshake", MODERN_REVISION)
"""What ``--era`` accepts."""


def _choose_era(facts: ServerFacts, era: str) -> None:
    """Speak the asked era (``--era``); a server that did not answer in it cannot be audited in it, and says so."""
    if era == "auto" or not facts.answered:
        return
    speaks = facts.modern if era == MODERN_REVISION else facts.legacy
    if not speaks:
        facts.answered = False
        opening = "server/discover" if era == MODERN_REVISION else "initialize"
        facts.problem = (f"--era {era}: the server did not answer {opening} (it answered: {', '.join(facts.eras)})")
        return
    facts.era = era


