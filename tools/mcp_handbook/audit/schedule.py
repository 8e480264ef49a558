"""Running the probes of an audit, ``jobs`` at a time, each under its own limit and the audit's deadline: one
contained run per probe on a fresh server, and the readers (``shares_session``) one at a time in a lane of their
own on the shared server (:mod:`.share`), a reader that asks for more than reading run again on a server of its own,
and a companion probe, which asks the same questions as another, run after it on its target (:data:`COMPANIONS`).

Apart from the engine, which decides what is run and what the findings say."""

from __future__ import annotations

import copy
import os
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..model import Rule
from ..probes.errors.protocol_errors import PROTOCOL_FAULTS
from ..probes.registry import Probe
from ..probes.support import MODERN_REVISION, Finding, Target, not_applicable
from .contain import Contained
from .guard import ToolCallGuard
from .plan import AuditOptions
from .preflight import ServerFacts
from .share import shared_target
from .shared_servers import SharedServers
from .verdicts import defect
from .workspaces import FreshTargets

FIRST_ANSWER = 2.0
"""How many probe waits a probe's server gets to answer for the first time (its start-up; see
:meth:`~.target.AuditTarget._answered`)."""


def crowding(jobs: int) -> float:
    """Servers starting per core when probes start ``jobs`` of them at once."""
    return max(1.0, jobs / (os.cpu_count() or 1))


def probe_wait(facts: ServerFacts, options: AuditOptions, jobs: int) -> float:
    """How long a probe waits for one answer: short for a server that never answered; longer for a
    slow starter, whose start-up the preflight timed alone while probes start ``jobs`` of them at once.
    A probe's server gets :data:`FIRST_ANSWER` times this for its first answer, and this or more, as its own
    start-up calls for, after it (:meth:`~.target.AuditTarget._answered`)."""
    if not facts.answered:
        return min(options.wait, 2.0)
    return max(options.wait, 3 * facts.startup * crowding(jobs))


COMPANIONS: dict[str, tuple[str, str]] = {
    "protocol_error_codes": ("clean_protocol_errors", PROTOCOL_FAULTS),
}
"""Lead probe -> (its companion, what the lead keeps for it on its target, :attr:`~..probes.target.Target.kept`). The
two ask a fresh server the same questions; the companion waits for the lead and is run on the lead's target, where
it judges the answers the lead got: one server start instead of two. When the lead kept nothing (it stopped first) or
its target did not know the listing (the companion would need a server), the companion gets a server of its own."""


def run_queue(queue: deque[Contained], *, jobs: int, deadline: float, budget: float,
              lane: SharedLane | None = None) -> tuple[dict[str, Contained], str]:
    """Run the probes, ``jobs`` at a time; stop any that overrun its own limit or the audit's. The ``lane``'s readers
    take one of the ``jobs`` slots, one after another on the shared server; one that asks for more than reading is
    put at the head of the queue to run on a server of its own; a companion (:data:`COMPANIONS`) at the head of the
    queue once its lead is done. Once a finished probe's server showed a :func:`defect`, start no more (the rest
    would meet it too): return it with the runs."""
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
                    halted = halted or defect(run.target)
                    if lane is not None and run is lane.running:
                        lane.ended(run)
                    if run.unshared and lane is not None:
                        queue.appendleft(lane.solo(run.name))
                    else:
                        finished[run.name] = run
                        if lane is not None and (after := lane.follow(run)) is not None:
                            queue.appendleft(after)
            while len(running) < jobs and now < deadline and not halted:
                chosen = lane.next() if lane is not None and lane.running is None and lane.waiting else None
                if chosen is None and queue:
                    chosen = queue.popleft()
                if chosen is None:
                    break
                chosen.start()
                running.append(chosen)
            if now >= deadline:
                break
            time.sleep(0.02)
    finally:
        for run in running:  # interrupted (Ctrl-C) or out of time: nothing may outlive the audit
            if not run.done:
                run.stop("the audit stopped before the probe finished")
            if not run.unshared:
                finished[run.name] = run
                if lane is not None and (after := lane.follow(run)) is not None:
                    queue.append(after)  # not started: the engine says why
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
    held: dict[str, str] = field(default_factory=dict)
    """Lead -> its companion, waiting for the lead to finish (:data:`COMPANIONS`); the engine says why any left here
    were not run."""

    def next(self) -> Contained:
        name = self.waiting.popleft()
        target = shared_target(self.pool, name, wait=self.wait, modern=self.modern[name])
        target.listing = self.listing(name)
        probe, handshake_era = self.probes[name], not self.modern[name]

        def opened_first(t: Target) -> Finding:
            if handshake_era:  # a 2026-07-28 server is opened by each request's own envelope: nothing to wait for
                self.pool.open_before("handshake", timeout=self.wait)
            return probe.run(t)

        self.running = Contained(name, opened_first, target, limit=self.limit)
        return self.running

    def follow(self, run: Contained) -> Contained | None:
        """The companion waiting for ``run``, on ``run``'s target when the lead kept what it needs and the target knew
        the listing (the companion then starts no server), else on a server of its own; None when none waits."""
        name = self.held.pop(run.name, None)
        if name is None:
            return None
        target, key = run.target, COMPANIONS[run.name][1]
        if run.killed or key not in target.kept or target.opening is None or not isinstance(target.listing, list):
            return self.solo(name)
        return Contained(name, self.probes[name].run, target, limit=run.limit)

    def ended(self, run: Contained) -> None:
        """A reader is done: the shared server must be as it found it, or it is retired."""
        self.running = None
        if not run.killed:
            self.pool.check_workspace()


def meets_modern(rules: list[Rule], probe: Probe, facts: ServerFacts) -> bool:
    """Whether a probe meets the server in the 2026-07-28 era: when that is the era the audit speaks
    (:attr:`ServerFacts.era`) and the probe can (``over_http``: it is written for either era), unless a rule it
    serves is about the handshake era."""
    return (facts.era == MODERN_REVISION and probe.over_http
            and not any("legacy-era" in r.conditions for r in rules))


def queue_probes(
    plan: Mapping[str, list[Rule]], probes: Mapping[str, Probe], targets: FreshTargets, facts: ServerFacts,
    options: AuditOptions, *, jobs: int,
) -> tuple[deque[Contained], SharedLane, dict[str, Finding]]:
    """One contained run per probe, each with its own target, except the readers (``shares_session``), which wait in
    the shared lane; a probe this toolchain lacks is N/A at once. Every target starts with the preflight's tool
    listing (the same ``tools/list`` on a fresh server, in the same era), so a probe that needs only the listing
    starts no server."""
    guard = ToolCallGuard.for_tools(facts.tools, allow=options.allow_tool_calls, listed=facts.tools_listed,
                                    calls=options.tool_calls)
    wait = probe_wait(facts, options, jobs)
    limit = max(options.probe_timeout, 4 * wait)
    modern = {name: meets_modern(plan[name], probes[name], facts) for name in plan if name in probes}

    def listing(name: str) -> list[dict[str, Any]] | None:
        same_era = modern[name] == (facts.era == MODERN_REVISION)
        return copy.deepcopy(facts.tools) if facts.tools_listed and same_era else None

    def solo(name: str) -> Contained:
        target = targets.make(name, wait=FIRST_ANSWER * wait, guard=guard, allow=options.allow_tool_calls,
                              modern=modern[name], floor=wait, crowding=crowding(jobs))
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
    for lead, (name, _key) in COMPANIONS.items():  # over HTTP no server is started: nothing to spare
        queued = {run.name for run in queue}
        if not options.url and lead in queued and name in queued:
            queue = deque(run for run in queue if run.name != name)
            lane.held[lead] = name
    # a long probe (several servers, a stall waited out), then those of the server's process (signals, stdin's end,
    # stderr at exit) that wait on it, often for the whole wait: started first, their start-ups and waits overlap the
    # others' work instead of ending the audit
    queue = deque(sorted(queue, key=lambda run: (not probes[run.name].long, probes[run.name].over_http)))
    # the readers that call tools first in the lane: they are the ones a slow tool keeps waiting, and the ones a tool
    # that is more than a read sends to a server of their own, which then overlaps the rest of the lane
    lane.waiting = deque(sorted(lane.waiting, key=lambda name: not probes[name].calls_tools))
    return queue, lane, verdicts
