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
shared server is started ahead, as soon as the queue is known.
"""

from __future__ import annotations

import copy
import os
import re
import secrets
import shutil
import tempfile
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import procs
from ..model import Corpus, Rule
from ..probes.registry import Probe
from ..probes.support import (
    GENERIC_REASONS, MODERN_REVISION, Finding, Target, failed, init_git_repository, mask, not_applicable,
)
from ..proving.pool import AUDIT_SERVERS_PER_CORE, worker_count
from .applies import does_not_apply
from .contain import Contained
from .guard import ToolCallGuard
from .observed import Seen, with_what_others_saw
from .plan import DOES_NOT_APPLY, NOT_CHECKED, AuditOptions, AuditResult, RuleFinding
from .preflight import ServerFacts, handshake
from .share import SharedServers, shared_target
from .target import AuditTarget, audit_env


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


WORKSPACE = "{workspace}"
"""Written in the server's command where it takes its folder: each probe's fresh workspace is put there, and the
auditor then knows the root the server serves."""


@dataclass(slots=True)
class _Targets:
    """Makes one fresh workspace and target per probe, all under one temporary folder."""

    root: Path
    argv: list[str]
    program_dir: Path | None
    canary: str
    served: tuple[str, ...] = ()
    """``--root`` folders, as given."""
    url: str | None = None
    """The endpoint of a server audited over HTTP (then ``argv`` is empty: no process is started)."""
    headers: tuple[tuple[str, str], ...] = ()
    made: list[AuditTarget] = field(default_factory=list)
    listing: tuple[bool, list[dict[str, Any]]] | None = None
    """Over HTTP: the tools the preflight listed, and whether in the 2026-07-28 era (:meth:`share_listing`)."""

    def share_listing(self, facts: ServerFacts) -> None:
        """Over HTTP every probe meets the same running server, so the listing the preflight read on its session is
        every probe's: a probe that only reads the listing (the tool-definition rules) opens no session of its own.
        The preflight lists in the handshake era when the server answered ``initialize``, else in 2026-07-28; only a
        probe met in that same era gets it. Over stdio each probe's fresh process lists for itself."""
        if self.url and facts.answered and facts.tools_listed:
            self.listing = (not facts.legacy, facts.tools)

    def served_root(self, workspace: Path) -> Path | None:
        """The folder the server serves: the workspace when the command names it, else the first ``--root``."""
        if any(WORKSPACE in arg for arg in self.argv[1:]):
            return workspace
        if self.served:
            return Path(os.path.normpath(workspace / self.served[0]))  # an absolute one replaces the workspace
        return None

    def kill_all(self) -> None:
        """The last resort on an interrupted audit: no server may outlive the auditor."""
        for target in self.made:
            target.kill()

    def sweep(self, spared: set[int]) -> list[str]:
        """Kill what the servers left running anywhere, and say what: processes that held a session's pipes (killed
        as it closed), processes that carry this audit's canary in their environment, and, when the auditor is a
        child subreaper, any child of it that is not one of ``spared`` (its children before the audit)."""
        killed = [p for target in self.made for s in target.sessions for p in getattr(s, "killed", ())]
        how = {p.pid: "held the server's pipes" for p in killed}
        late = procs.kill(procs.carrying(self.canary))
        how.update({p.pid: "carried the audit's canary in its environment" for p in late})
        if procs.is_subreaper():
            mine = [p for p in procs.children() if p.pid not in spared]
            orphans = procs.kill([p for p in mine if p.state not in ("Z", "X")])
            how.update({p.pid: "was re-parented to the auditor" for p in orphans if p.pid not in how})
            late += orphans
            procs.reap([p for p in mine if p.state in ("Z", "X")])  # orphans that ended by themselves
        seen: dict[int, procs.Proc] = {p.pid: p for p in [*killed, *late]}
        return [f"{p.describe()}: {how[p.pid]}" for p in seen.values()]

    def make(self, name: str, *, wait: float, guard: ToolCallGuard, allow: frozenset[str] | None,
             modern: bool = False, floor: float = 0.0, crowding: float = 1.0) -> AuditTarget:
        home = self.root / f"{len(self.made) + 1:03d}-{name}"
        workspace, tmp = home / "ws", home / "tmp"
        workspace.mkdir(parents=True)
        tmp.mkdir()
        env = audit_env(workspace, self.canary, program_dir=self.program_dir, tmp=tmp)
        if _takes_repository(self.argv):
            init_git_repository(workspace, env["PATH"])
        argv = [self.argv[0], *(arg.replace(WORKSPACE, str(workspace)) for arg in self.argv[1:])] if self.argv else []
        target = AuditTarget(
            argv=argv, workspace=workspace, env=env, canary=self.canary, allow_tool_calls=allow,
            timeout=wait, guard=replace(guard, blocked=[]), root=self.served_root(workspace),
            transport="http" if self.url else "stdio", url=self.url, http_headers=self.headers, modern=modern,
            floor=floor, crowding=crowding,
        )
        if self.listing is not None and self.listing[0] == modern:
            target.listing = copy.deepcopy(self.listing[1])  # a probe may change what it was given; the next one not
        self.made.append(target)
        return target


REPOSITORY_OPTION = re.compile(r"^--?(?:repo|repository|repo[-_]path|git[-_]dir)(?:=|$)", re.I)


def _takes_repository(argv: list[str]) -> bool:
    """True when the command puts ``{workspace}`` after an option naming a git repository (``--repository
    {workspace}``, ``--repo={workspace}``): such a server refuses to start, or to do anything, in a folder that is
    not one, so each fresh workspace is made a repository with one commit first."""
    for before, arg in zip(["", *argv[1:]], argv[1:]):
        if WORKSPACE in arg and (REPOSITORY_OPTION.match(arg) or REPOSITORY_OPTION.match(before)):
            return True
    return False


def _jobs(options: AuditOptions) -> int:
    return worker_count(options.jobs, per_core=AUDIT_SERVERS_PER_CORE)


def _plan(corpus: Corpus, options: AuditOptions) -> dict[str, list[Rule]]:
    """Automated rules grouped by probe, so a probe shared by several rules runs once."""
    plan: dict[str, list[Rule]] = {}
    for rule in corpus.rules:
        if rule.check == "automated" and (options.rules is None or rule.id in options.rules):
            plan.setdefault(rule.probe, []).append(rule)
    return plan


def _preflight(targets: _Targets, options: AuditOptions, deadline: float) -> tuple[ServerFacts, Contained]:
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
    if (read := _defect(target)):  # what the reader saw wins over what the liveness check concluded from silence
        facts.defect, facts.defect_probe, facts.defect_reason = read, "", ""
    return facts, run


FIRST_ANSWER = 2.0
"""How many probe waits a probe's server gets to answer for the first time (its start-up; see
:meth:`~.target.AuditTarget._answered`)."""


def _crowding(jobs: int) -> float:
    """Servers starting per core when probes start ``jobs`` of them at once."""
    return max(1.0, jobs / (os.cpu_count() or 1))


def _probe_wait(facts: ServerFacts, options: AuditOptions, jobs: int) -> float:
    """How long a probe waits for one answer: short for a server that never answered; longer for a
    slow starter, whose start-up the preflight timed alone while probes start ``jobs`` of them at once.
    A probe's server gets :data:`FIRST_ANSWER` times this for its first answer, and this or more, as its own
    start-up calls for, after it (:meth:`~.target.AuditTarget._answered`)."""
    if not facts.answered:
        return min(options.wait, 2.0)
    return max(options.wait, 3 * facts.startup * _crowding(jobs))


def _schedule(queue: deque[Contained], *, jobs: int, deadline: float, budget: float,
              lane: SharedLane | None = None) -> tuple[dict[str, Contained], str]:
    """Run the probes, ``jobs`` at a time; stop any that overrun its own limit or the audit's. The ``lane``'s readers
    take one of the ``jobs`` slots, one after another on the shared server; one that asks for more than reading is
    put at the head of the queue to run on a server of its own. Once a finished probe's server showed a
    :func:`_defect`, start no more (the rest would meet it too): return it with the runs."""
    running: list[Contained] = []
    finished: dict[str, Contained] = {}
    halted = ""
    try:
        while ((queue or (lane and lane.waiting)) and not halted) or running:
            now = time.monotonic()
            for run in list(running):
                if now >= deadline and not run.done:
                    run.stop(f"the audit's {budget:g} s time budget ran out")
                elif run.overdue(now):
                    run.stop(f"the probe did not finish within {run.limit:.1f} s")
                if run.done or run.killed:
                    running.remove(run)
                    halted = halted or _defect(run.target)
                    if lane is not None and run is lane.running:
                        lane.ended(run)
                    if run.unshared and lane is not None:
                        queue.appendleft(lane.solo(run.name))
                    else:
                        finished[run.name] = run
            while len(running) < jobs and now < deadline and not halted:
                run = lane.next() if lane is not None and lane.running is None and lane.waiting else None
                if run is None and queue:
                    run = queue.popleft()
                if run is None:
                    break
                run.start()
                running.append(run)
            if now >= deadline:
                break
            time.sleep(0.02)
    finally:
        for run in running:  # interrupted (Ctrl-C) or out of time: nothing may outlive the audit
            if not run.done:
                run.stop("the audit stopped before the probe finished")
            if not run.unshared:
                finished[run.name] = run
        if lane is not None:
            lane.pool.close()
    return finished, halted


@dataclass(slots=True)
class SharedLane:
    """The probes registered ``shares_session``, waiting to run one at a time on the shared server
    (:mod:`.share`), and how to give one a server of its own when it asks for more than reading."""

    pool: SharedServers
    waiting: deque[str]
    probes: Mapping[str, Probe]
    modern: Mapping[str, bool]
    wait: float
    limit: float
    listing: Callable[[str], list[dict[str, Any]] | None]
    """The preflight's tool listing for a probe (a copy), or None when it met the server in another era."""
    solo: Callable[[str], Contained]
    running: Contained | None = None

    def next(self) -> Contained:
        name = self.waiting.popleft()
        target = shared_target(self.pool, name, wait=self.wait, modern=self.modern[name])
        target.listing = self.listing(name)
        self.running = Contained(name, self.probes[name].run, target, limit=self.limit)
        return self.running

    def ended(self, run: Contained) -> None:
        """A reader is done: the shared server must be as it found it, or it is retired."""
        self.running = None
        if not run.killed:
            self.pool.check_workspace()


def _defect(target: AuditTarget) -> str:
    """What made one of the target's sessions unreadable as protocol (a flood, JSON nested too deep), or ""."""
    return next((d for s in target.sessions if (d := getattr(s, "defect", ""))), "")


def _trouble(target: AuditTarget) -> str:
    """Why what a probe saw cannot be trusted to judge by: a :func:`_defect`, or a line too long to read."""
    return _defect(target) or next((u for s in target.sessions if (u := getattr(s, "unreadable", ""))), "")


def _not_believed(finding: Finding, target: AuditTarget) -> Finding:
    """A FAIL met on a session whose stdout could not all be read. After a :func:`_defect` nothing it saw can be
    trusted: N/A, not checked, with the cause (the FAIL the probe gave kept as evidence). After one line too long to
    read, only a FAIL for want of an answer (a generic reason) is not checked; a FAIL the probe judged on what it
    could see stands, with a note of the line it could not."""
    cause = _trouble(target)
    if finding.status != "FAIL" or not cause:
        return finding
    if _defect(target) or finding.reason in GENERIC_REASONS:
        return not_applicable(f"not checked: {cause}", f"the probe, unable to read it, said FAIL: {finding.summary}",
                              *finding.evidence)
    return replace(finding, evidence=(f"note: {cause}; an answer in it was not seen", *finding.evidence))


STDOUT_PROBE = "stdout_jsonrpc_only"
"""The probe of TRN-001 (stdout carries JSON-RPC messages only): the one rule a :func:`_defect` breaks."""


def _stdout_unreadable(cause: str, own: Finding | None, target: AuditTarget) -> Finding:
    """TRN-001's verdict when the server's stdout stopped being readable: its own probe's FAIL when it saw the
    same, else a FAIL that names the cause."""
    if own is not None and own.status == "FAIL" and own.reason == "non_jsonrpc_stdout":
        return own
    seen = next((s for s in target.sessions if getattr(s, "defect", "")), target.sessions[-1] if target.sessions else None)
    rows = tuple(seen.transcript(limit=6)) if seen is not None else ()
    return failed("non_jsonrpc_stdout", f"stdout stopped carrying messages a client can read: {cause}; the audit "
                  "stopped there", *rows)


def run_audit(
    corpus: Corpus, command: Sequence[str], *, options: AuditOptions = AuditOptions(), probes: Mapping[str, Probe] | None = None,
) -> AuditResult:
    """Audit the stdio server ``command`` against every automated rule of ``corpus``."""
    if probes is None:
        from ..probes import PROBES as probes
    if options.url:
        if command:
            raise AuditError("give either --url or a server command after --, not both")
        argv, program_dir = [], None
    else:
        argv, program_dir = resolve_command(command)
    started = time.monotonic()
    deadline = started + options.timeout
    spared = {p.pid for p in procs.children()} if procs.is_subreaper() else set()
    # an abandoned probe or an escaped grandchild may still hold a file in there: never fail on cleanup
    with tempfile.TemporaryDirectory(prefix="hb-audit-", ignore_cleanup_errors=True) as tmp:
        targets = _Targets(Path(tmp), argv, program_dir, f"hb-canary-{secrets.token_hex(8)}", options.roots,
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
            queue, lane, verdicts = _queue(runnable, probes, targets, facts, options, jobs=jobs)
            if lane.waiting:
                lane.pool.start_ahead()  # its start-up overlaps the first probes' own
            runs, halted = _schedule(queue, jobs=jobs, deadline=deadline, budget=options.timeout, lane=lane)
        except BaseException:  # Ctrl-C, SIGTERM: the servers run in their own sessions and would live on
            targets.kill_all()
            targets.sweep(spared)
            raise
        stopped = mask(facts.defect if facts.answered else "", pre.target) or mask(halted, pre.target)
        for name in [*(run.name for run in queue), *lane.waiting]:
            verdicts[name] = not_applicable(f"not checked: {stopped}" if stopped else
                                                f"not run: the audit's {options.timeout:g} s time budget ran out first")
        if not facts.answered:
            verdicts = {name: _from_preflight(name, facts) for name in plan}
        canary = [f"{name}: {seen}" for name, run in [("preflight", pre), *runs.items()] for seen in run.target.canary_sightings()]
        for name, run in runs.items():
            verdicts[name] = _not_believed(_with_canary(run.finding(), name, canary), run.target)
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
                own = runs[STDOUT_PROBE] if STDOUT_PROBE in runs else None
                verdicts[STDOUT_PROBE] = _stdout_unreadable(stopped, own.finding() if own else None,
                                                            own.target if own else pre.target)
        verdicts = {name: _masked(finding, pre.target) for name, finding in verdicts.items()}
        killed = targets.sweep(spared)
        unread = [u for target in targets.made for s in target.sessions if (u := getattr(s, "unreadable", ""))]
        findings = tuple(
            RuleFinding(rule, name, not_applicable(elsewhere[rule.id]), 0.0, na=DOES_NOT_APPLY) if rule.id in elsewhere
            else RuleFinding(rule, name, not_applicable(unseen[rule.id]), 0.0, na=NOT_CHECKED) if rule.id in unseen
            else RuleFinding(rule, name, verdicts[name], runs[name].seconds if name in runs else 0.0,
                             na=_na_kind(verdicts[name]))
            for name, rules in plan.items() for rule in rules
        )
    result = AuditResult(tuple(argv) or (options.url or "",), facts, findings, tuple(canary), time.monotonic() - started,
                         options, stopped=stopped, unread=tuple(dict.fromkeys(unread)),
                         killed=tuple(mask(k, pre.target) for k in killed))
    return _with_sdk_baseline(corpus, result, probes, started)


def _with_sdk_baseline(corpus: Corpus, result: AuditResult, probes: Mapping[str, Probe], started: float) -> AuditResult:
    """Tell the SDK's defaults from the author's FAILs (:mod:`.sdk_baseline`); the audit's seconds include it."""
    from .sdk_baseline import attribute

    return replace(attribute(corpus, result, probes), seconds=time.monotonic() - started)


STDIO_ONLY = ("not checked: stdio-only probe (it judges the server's process: its stderr, signals, stdin, environment "
              "or files; the audit reaches this server over HTTP only)")


def _na_kind(finding: Finding) -> str:
    """Which N/A a probe's verdict is: *does not apply* when the probe saw the rule's condition fail (its summary
    says ``does not apply:``, as a 2026-07-28 probe does for a server that refuses ``server/discover``), else
    *not checked*; ``""`` for a PASS or FAIL."""
    if finding.status != "N/A":
        return ""
    return DOES_NOT_APPLY if finding.summary.startswith("does not apply:") else NOT_CHECKED


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


def _modern(rules: list[Rule], probe: Probe, facts: ServerFacts) -> bool:
    """Whether a probe meets the server in the 2026-07-28 era: when that is the era the audit speaks
    (:attr:`ServerFacts.era`) and the probe can (``over_http``: it is written for either era), unless a rule it
    serves is about the handshake era."""
    return (facts.era == MODERN_REVISION and probe.over_http
            and not any("legacy-era" in r.conditions for r in rules))


def _queue(
    plan: Mapping[str, list[Rule]], probes: Mapping[str, Probe], targets: _Targets, facts: ServerFacts,
    options: AuditOptions, *, jobs: int,
) -> tuple[deque[Contained], SharedLane, dict[str, Finding]]:
    """One contained run per probe, each with its own target, except the readers (``shares_session``), which wait in
    the shared lane; a probe this toolchain lacks is N/A at once. Every target starts with the preflight's tool
    listing (the same ``tools/list`` on a fresh server, in the same era), so a probe that needs only the listing
    starts no server."""
    guard = ToolCallGuard.for_tools(facts.tools, allow=options.allow_tool_calls, listed=facts.tools_listed,
                                    calls=options.tool_calls)
    wait = _probe_wait(facts, options, jobs)
    limit = max(options.probe_timeout, 4 * wait)
    modern = {name: _modern(plan[name], probes[name], facts) for name in plan if name in probes}

    def listing(name: str) -> list[dict[str, Any]] | None:
        same_era = modern[name] == (facts.era == MODERN_REVISION)
        return copy.deepcopy(facts.tools) if facts.tools_listed and same_era else None

    def solo(name: str) -> Contained:
        target = targets.make(name, wait=FIRST_ANSWER * wait, guard=guard, allow=options.allow_tool_calls,
                              modern=modern[name], floor=wait, crowding=_crowding(jobs))
        target.listing = listing(name)
        if target.listing is not None and facts.opening:  # its server starts only when the probe uses its session
            target.opening = copy.deepcopy(facts.opening)
        return Contained(name, probes[name].run, target, limit=limit)

    pool = SharedServers(lambda: targets.make("shared", wait=wait, guard=guard, allow=options.allow_tool_calls),
                         known=dict(guard.known), first_answer=FIRST_ANSWER)
    lane = SharedLane(pool, deque(), probes, modern, wait, limit, listing, solo)
    queue: deque[Contained] = deque()
    verdicts: dict[str, Finding] = {}
    for name in plan:
        probe = probes.get(name)
        if probe is None:
            verdicts[name] = not_applicable(f"not run: the probe {name!r} is not in this toolchain")
            continue
        if probe.calls_tools and not options.tool_calls:
            verdicts[name] = not_applicable("not checked: the probe calls tools, and the audit ran with --no-tool-calls")
            continue
        if probe.shares_session and not options.url:
            lane.waiting.append(name)
        else:
            queue.append(solo(name))
    # a long probe (several servers, a stall waited out), then those of the server's process (signals, stdin's end,
    # stderr at exit) that wait on it, often for the whole wait: started first, their start-ups and waits overlap the
    # others' work instead of ending the audit
    queue = deque(sorted(queue, key=lambda run: (not probes[run.name].long, probes[run.name].over_http)))
    return queue, lane, verdicts


def _with_canary(finding: Finding, name: str, sightings: list[str]) -> Finding:
    """Add where the canary came back during this probe to its evidence; the rule's own probe judges it."""
    own = [s.split(": ", 1)[1] for s in sightings if s.startswith(f"{name}: ")]
    if not own:
        return finding
    return replace(finding, evidence=(*finding.evidence, *(f"canary secret seen in {s}" for s in own[:3])))


def _masked(finding: Finding, target: Target) -> Finding:
    """The finding with the canary secret masked wherever it was quoted (a probe's or the preflight's): no
    worksheet or console shows it."""
    return replace(finding, summary=mask(finding.summary, target), evidence=tuple(mask(e, target) for e in finding.evidence))


def _framing_seen(facts: ServerFacts) -> Finding | None:
    if not facts.stdout_garbage:
        return None
    return failed("non_jsonrpc_stdout", f"before any answer the server wrote stdout line(s) that are not JSON-RPC "
                  f"messages: {facts.problem}", *facts.stdout_garbage)


PREFLIGHT_VERDICTS: dict[str, Callable[[ServerFacts], Finding | None]] = {
    "stdout_jsonrpc_only": _framing_seen,
}
"""Probes whose verdict the preflight already saw when the server could not be met: a table of plain functions,
each a Finding or None (nothing to say)."""


def _from_preflight(name: str, facts: ServerFacts) -> Finding:
    """A server that never completed the handshake: what the preflight saw decides, else not checked."""
    judge = PREFLIGHT_VERDICTS.get(name)
    return (judge(facts) if judge else None) or not_applicable(f"not checked: {facts.describe()}")
