"""SEC-003: a child process gets an environment built from an allow-list, not the server's own.

The server's environment holds its secrets (API tokens, connection strings). A child that inherits it,
or gets it through a deny-list of secret-looking names, hands those secrets to whatever the model made
it run. The probe starts the server with decoys (a connection string holding the canary, a random
variable) and has a child print its environment: neither the canary nor any of the server's own
variables beyond a few fixed, non-secret names may show up there.

A child that prints nothing is seen too, while each callable tool runs with arguments it accepts (paths inside
the served folder, which the probe makes a git repository with one commit when ``git`` is on the server's
``PATH``): a folder of stand-ins first on the server's ``PATH`` records the exact environment of every program the
server starts by name (``git``, ``sh``, ``node`` ... and programs the tool descriptions name), however briefly it
runs (:mod:`._shims`); on Linux the probe also reads ``/proc/<pid>/environ`` of the processes the server starts,
which catches a longer-lived program started by absolute path. Each is judged the same way. The server's own
environment holds the canary by design and is never judged.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from ..registry import probe
from ..support import (
    Finding, ProbeAbort, Target, callable_tools, compact, failed, not_applicable, passed, session_with_tools, show,
    tool_name,
)
from ..calls import ToolCalls
from ._common import (
    Child, ChildWatch, child_environment, env_call, how_to_allow, not_allowed, ordinary_arguments, prepare_root,
    proc_available,
)
from ._shims import PathShims

_BENIGN_ENV = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME", "SHELL", "TMPDIR", "PWD"})
"""Variables a child may share with the server without that being a leak (their values are not secrets)."""
MAX_WATCHED_CALLS = 12
"""Tools called with ordinary arguments while their children are watched."""


def _inherited(env: dict[str, str], server_env: dict[str, str]) -> list[str]:
    return sorted(n for n, v in env.items()
                  if n in server_env and server_env[n] == v and n not in _BENIGN_ENV and not n.startswith("LC_"))


def _child(child: Child, target: Target) -> str:
    program = child.argv[0].rsplit("/", 1)[-1] if child.argv else "?"
    return (f"child {program} (pid {child.pid}, `{show(' '.join(child.argv), target, 100)}`, seen by "
            f"{'its PATH stand-in' if child.seen_by != '/proc' else '/proc'}), started during {child.during}")


def _leaked(child: Child, target: Target) -> str:
    """The variables holding the canary, each shown once with the value masked: ``API_TOKEN=<CANARY>``."""
    holders = sorted(n for n, v in child.environ.items() if target.canary in n or target.canary in v)
    if not holders:
        return "a raw entry"
    first = holders[0]
    return ", ".join([show(f"{first}={child.environ[first]}", target, 90), *holders[1:]])


def _watched_calls(target: Target, watch: ChildWatch, calls: ToolCalls, tools: list[dict], skip: str | None,
                   root: Path | None) -> None:
    """Call each callable tool once with arguments it accepts while watching the children it starts."""
    for tool in callable_tools(target, tools)[:MAX_WATCHED_CALLS]:
        name = tool_name(tool)
        args = ordinary_arguments(target, tool, root)
        if name == skip or args is None or not calls.may_try(name):
            continue
        try:
            session = calls.open()
        except ProbeAbort as stop:  # a fresh server did not start: judge the children seen so far
            calls.unanswered[name] = f"not checked: {name}: {stop.finding.summary}"
            return
        with watch.during(session.pid, f"{name}({compact(args, 60)})", limit=calls.wait + 1.0):
            calls.call(name, args)


@probe("child_env_allowlist", "a child process sees none of the server's environment", calls_tools=True, reasons={
    "canary_reached_child": "the server's secret reached a child's environment: it was inherited or filtered by a deny-list",
    "server_env_inherited": "variables of the server's own environment (not fixed, non-secret names) reached a child",
})
def child_env_allowlist(target: Target) -> Finding:
    """Start the server with decoy secrets; a child that prints its environment, and every child seen in /proc
    while the tools run, must hold none of them."""
    decoys = {"DATABASE_URL": f"postgresql://app:{target.canary}@db.internal:5432/app",
              "HB_PROBE_DECOY": f"hb-decoy-{secrets.token_hex(6)}"}
    with PathShims(target.env.get("PATH", "")) as shims:
        return _judge(target, decoys, shims)


def _judge(target: Target, decoys: dict[str, str], shims: PathShims) -> Finding:
    root = prepare_root(target)
    decoys = {**decoys, "PATH": shims.path}
    server_env = {**target.env, **decoys}
    session, _, tools = session_with_tools(target, extra_env=decoys)
    shims.add_mentioned(tools)
    watch = ChildWatch(shims)
    evidence: list[str] = []
    printed: dict[str, str] | None = None
    call = env_call(target, tools)
    reusable = True
    if call is not None:
        try:
            with watch.during(session.pid, f"{call[0]}({compact(call[1], 60)})", limit=target.timeout + 1.0):
                env, text, shown = child_environment(target, session, tools)
        except ProbeAbort as stop:  # refused (N/A), or not answered: the children seen from outside still count
            reusable = stop.finding.status != "FAIL"
            evidence.append(f"not checked: {call[0]} did not answer within {target.timeout:g} s" if not reusable
                            else stop.finding.summary)
        else:
            printed = env
            evidence += shown
            inherited = _inherited(env, server_env)
            evidence.append(f"the child saw: {', '.join(sorted(env)) or '(an empty environment)'}")
            if target.canary in text:
                holders = [n for n, v in env.items() if target.canary in v]
                return failed("canary_reached_child", f"the server's secret reached the child "
                              f"(in {', '.join(holders) or 'its output'}): the child environment was inherited or "
                              "filtered by a deny-list", *evidence)
            if inherited:
                return failed("server_env_inherited", f"{len(inherited)} variable(s) of the server's own environment "
                              f"were passed through: {', '.join(inherited)}; build the child environment from an "
                              "allow-list", *evidence)
    calls = ToolCalls(target, wait=target.timeout, extra_env=decoys, session=session if reusable else None)
    _watched_calls(target, watch, calls, tools, call[0] if call else None, root)
    return _verdict(target, watch, calls, printed, server_env, [*evidence, *_blind_spots(shims)],
                    not_allowed(target, tools))


def _blind_spots(shims: PathShims) -> list[str]:
    """How the children were looked for, and what that misses."""
    rows = [f"stand-ins first on the server's PATH for: {', '.join(shims.names[:30]) or '(none found on its PATH)'}"]
    if not proc_available():
        rows.append("no /proc here: a child started by absolute path is not seen")
    return rows


def _verdict(target: Target, watch: ChildWatch, calls: ToolCalls, printed: dict[str, str] | None,
             server_env: dict[str, str], evidence: list[str], blocked: list[str]) -> Finding:
    leaks, passed_through, clean = [], [], []
    for child in watch.children.values():
        inherited = _inherited(child.environ, server_env)
        if target.canary.encode() in child.raw:
            leaks.append(f"{_child(child, target)}: the server's secret in its environment ({_leaked(child, target)})")
        elif inherited:
            passed_through.append(f"{_child(child, target)}: inherited {', '.join(inherited)}")
        else:
            clean.append(f"{_child(child, target)}: {', '.join(sorted(child.environ)) or '(an empty environment)'}")
    notes = [f"not called: {how_to_allow(blocked)}"] if blocked else []
    evidence = [*evidence, *calls.notes, *notes]
    seen = f"{len(watch.children)} child process(es) seen during {watch.calls} call(s), by PATH stand-ins or /proc"
    if leaks:
        return failed("canary_reached_child", f"the server's secret reached {len(leaks)} child process(es) it started "
                      f"({seen}): the child environment was inherited or filtered by a deny-list",
                      *leaks[:6], *evidence)
    if passed_through:
        return failed("server_env_inherited", f"variables of the server's own environment reached "
                      f"{len(passed_through)} child process(es) ({seen}); build the child environment from an "
                      "allow-list", *passed_through[:6], *evidence)
    if printed is not None:
        if not printed:
            return passed("the child printed an empty environment (or the tool does not show the program's output): "
                          "nothing of the server's environment is visible", *evidence, *clean[:4])
        return passed(f"the child's environment holds {len(printed)} variable(s), none inherited from the server "
                      "beyond fixed, non-secret names", *evidence, *clean[:4])
    if clean:
        return passed(f"{len(clean)} child process(es) seen while the tools ran hold none of the server's "
                      "environment beyond fixed, non-secret names", *clean[:6], *evidence)
    return not_applicable(f"not checked: no callable tool runs a program that prints its environment, and no child "
                          f"process appeared during the {watch.calls} tool call(s) watched (PATH stand-ins"
                          f"{', /proc' if proc_available() else ''})"
                          + (f"; not called: {how_to_allow(blocked)}" if blocked else "")
                          + "; review the code that builds child environments by hand",
                          *[row for row in evidence if row not in notes])
