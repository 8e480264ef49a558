"""A fresh workspace and target per probe, all under one temporary folder, and the sweep that leaves no server
behind: the command's ``{workspace}`` filled in (and made a git repository when the command names it one), the
``--root`` folder the server serves, and every process a server left running, killed and named.

Apart from the engine, which decides what runs when: this module decides only where and with what."""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .. import procs
from ..probes.support import init_git_repository
from ..wire import WireSession
from .guard import ToolCallGuard
from .preflight import ServerFacts
from .target import AuditTarget, audit_env

WORKSPACE = "{workspace}"
"""Written in the server's command where it takes its folder: each probe's fresh workspace is put there, and the
auditor then knows the root the server serves."""


@dataclass(slots=True)
class FreshTargets:
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
    names: list[str] = field(default_factory=list)
    """The name each target of :attr:`made` was made for (a probe's, ``preflight`` or ``shared``)."""
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
        if takes_repository(self.argv):
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
        self.names.append(name)
        return target

    def starts(self) -> dict[str, int]:
        """Server processes started so far, by what they were started for (a probe's name, ``preflight``,
        ``shared``): what an audit's time goes to on a server slow to start, counted the same on a busy machine."""
        counted: dict[str, int] = {}
        for name, target in zip(self.names, self.made):
            spawned = sum(1 for s in target.sessions if isinstance(s, WireSession))
            if spawned:
                counted[name] = counted.get(name, 0) + spawned
        return counted


REPOSITORY_OPTION = re.compile(r"^--?(?:repo|repository|repo[-_]path|git[-_]dir)(?:=|$)", re.I)


def takes_repository(argv: list[str]) -> bool:
    """True when the command puts ``{workspace}`` after an option naming a git repository (``--repository
    {workspace}``, ``--repo={workspace}``): such a server refuses to start, or to do anything, in a folder that is
    not one, so each fresh workspace is made a repository with one commit first."""
    for before, arg in zip(["", *argv[1:]], argv[1:]):
        if WORKSPACE in arg and (REPOSITORY_OPTION.match(arg) or REPOSITORY_OPTION.match(before)):
            return True
    return False
