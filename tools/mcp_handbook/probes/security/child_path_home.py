"""SEC-004: a child's PATH and HOME are fixed values, not the server's.

A child that searches the server's PATH runs whatever program comes first on it (a look-alike planted by
another tool, a directory in the workspace the model can write to); a child with the server's or the
user's HOME reads and writes the user's configuration (git, ssh, shell start-up files). The probe starts
the server with a planted directory of look-alike programs first on PATH and a foreign HOME, has a child
print its environment, and judges what the child got.

When no tool prints a child's environment, the children are watched instead: the planted directory is then a
folder of recording stand-ins (:mod:`._shims`) and each callable tool runs once with arguments it accepts. A
stand-in that runs at all was found through the server's PATH; what it recorded (the child's PATH and HOME) is
judged the same way.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from pathlib import Path

from ..calls import ToolCalls
from ..registry import probe
from ..support import (
    Finding, ProbeAbort, Target, callable_tools, compact, failed, not_applicable, passed, session_with_tools, show,
    tool_name, tools_of,
)
from ._common import ChildWatch, child_environment, env_call, how_to_allow, not_allowed, ordinary_arguments, prepare_root
from ._shims import PathShims

MAX_WATCHED_CALLS = 12
"""Tools called with ordinary arguments while their children are watched (when none prints an environment)."""

_PLANTED_PROGRAMS = ("printenv", "env", "ls", "cat", "head", "wc", "grep", "echo")
"""Look-alikes put in the planted directory: each prints a marker, then runs the real program."""


@probe("child_path_home", "a child's PATH and HOME are fixed, not the server's", calls_tools=True, reasons={
    "planted_program_ran": "a child ran a look-alike program from the server's PATH",
    "path_from_server": "the child's PATH holds the planted directory taken from the server's PATH",
    "path_missing": "the child has no PATH, so programs search a built-in default",
    "path_relative_entry": "the child's PATH holds an empty or relative entry, which means the working directory",
    "path_in_workspace": "the child's PATH holds a directory inside the workspace the model can write to",
    "home_missing": "the child has no HOME, so programs look up the user's real home directory",
    "home_from_server": "the child's HOME was copied from the server's environment",
    "home_is_user_home": "the child's HOME is the user's real home directory",
})
def child_path_home(target: Target) -> Finding:
    """Start the server with a planted directory first on PATH and a foreign HOME; the child must get neither."""
    tools = tools_of(target)
    if env_call(target, tools) is None:
        return _watched(target, tools)
    tag = secrets.token_hex(4)
    marker = f"HB_PATH_HIJACK_{tag}"
    scratch = Path(tempfile.mkdtemp(prefix="hb-path-probe-"))
    try:
        planted = scratch / "planted-bin"
        planted.mkdir()
        for program in _PLANTED_PROGRAMS:
            real = shutil.which(program, path="/usr/bin:/bin")
            if real:
                script = planted / program
                script.write_text(f'#!/bin/sh\necho {marker}\nexec {real} "$@"\n')
                script.chmod(0o755)
        parent_home = scratch / "server-home"
        parent_home.mkdir()
        extra = {"PATH": f"{planted}:{target.env.get('PATH', '/usr/bin:/bin')}", "HOME": str(parent_home)}
        session, _, tools = session_with_tools(target, extra_env=extra)
        env, text, evidence = child_environment(target, session, tools)
        session.close(grace=1.0)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    evidence.insert(0, f"server started with PATH={extra['PATH']} HOME={parent_home}")
    if not env and marker not in text:
        return not_applicable("the child printed no environment, so its PATH and HOME cannot be read", *evidence)
    problems: list[tuple[str, str]] = []
    if marker in text:
        problems.append(("planted_program_ran",
                         f"the child ran the planted {planted}/… program: its PATH came from the server's environment"))
    path = env.get("PATH")
    workspace = str(target.workspace.resolve())
    if path is None:
        problems.append(("path_missing",
                         "the child has no PATH: set a fixed one (programs otherwise search a built-in default)"))
    else:
        for entry in path.split(":"):
            if entry == str(planted):
                problems.append(("path_from_server", f"PATH holds the planted directory {entry}"))
            elif not entry or not entry.startswith("/"):
                problems.append(("path_relative_entry",
                                 f"PATH holds {entry or 'an empty entry'!r}, which means the working directory"))
            elif entry == workspace or entry.startswith(workspace + "/"):
                problems.append(("path_in_workspace", f"PATH holds {entry}, inside the workspace the model can write to"))
    home = env.get("HOME")
    if home is None:
        problems.append(("home_missing", "the child has no HOME: programs then look up the real home directory of the user"))
    elif home == str(parent_home):
        problems.append(("home_from_server", f"HOME={home} was copied from the server's environment"))
    elif home == _user_home():
        problems.append(("home_is_user_home", f"HOME={home} is the user's real home directory"))
    evidence.append(f"child PATH={path!r} HOME={home!r}")
    return _judged(problems, evidence)


def _judged(problems: list[tuple[str, str]], evidence: list[str]) -> Finding:
    if problems:
        (reason, summary), rest = problems[0], [note for _, note in problems[1:]]
        return failed(reason, summary, *rest, *evidence)
    return passed("the child's PATH and HOME are fixed values, not the server's", *evidence)


def _user_home() -> str | None:
    """The real home directory of the user running the probe, from the password database."""
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return None


def _path_home_problems(env: dict[str, str], planted: str, parent_home: str, target: Target) -> list[tuple[str, str]]:
    """What is wrong with a recorded child's PATH and HOME (it ran a stand-in, so its PATH holds ``planted``)."""
    problems = [("planted_program_ran", f"the child ran the planted {planted}/… program: its PATH came from the "
                 "server's environment")]
    home = env.get("HOME")
    if home is None:
        problems.append(("home_missing", "the child has no HOME: programs then look up the real home directory of the user"))
    elif home == parent_home:
        problems.append(("home_from_server", f"HOME={home} was copied from the server's environment"))
    elif home == _user_home():
        problems.append(("home_is_user_home", f"HOME={home} is the user's real home directory"))
    return problems


def _watched(target: Target, tools: list[dict]) -> Finding:
    """No tool prints an environment: call each callable tool with arguments it accepts, with recording stand-ins
    first on the server's PATH and a foreign HOME, and judge the first child that ran a stand-in."""
    root = prepare_root(target)
    with PathShims(target.env.get("PATH", "/usr/bin:/bin")) as shims, tempfile.TemporaryDirectory(
            prefix="hb-home-probe-") as parent_home:
        shims.add_mentioned(tools)
        extra = {"PATH": shims.path, "HOME": parent_home}
        watch = ChildWatch(shims)
        calls = ToolCalls(target, wait=target.timeout, extra_env=extra)
        for tool in callable_tools(target, tools)[:MAX_WATCHED_CALLS]:
            name, args = tool_name(tool), ordinary_arguments(target, tool, root)
            if args is None or not calls.may_try(name):
                continue
            try:
                session = calls.open()
            except ProbeAbort as stop:
                calls.unanswered[name] = f"not checked: {name}: {stop.finding.summary}"
                break
            with watch.during(session.pid, f"{name}({compact(args, 60)})", limit=calls.wait + 1.0):
                calls.call(name, args)
            if any(c.seen_by != "/proc" for c in watch.children.values()):
                break
        recorded = [c for c in watch.children.values() if c.seen_by != "/proc"]
        blocked = not_allowed(target, tools)
        evidence = [f"server started with PATH={shims.folder}:… (recording stand-ins first) HOME={parent_home}",
                    *calls.notes, *([f"not called: {how_to_allow(blocked)}"] if blocked else [])]
        if not recorded:
            return not_applicable(f"not checked: no tool prints a child's environment, and no child started a program "
                                  f"through the server's PATH during {watch.calls} tool call(s) watched", *evidence)
        child = recorded[0]
        evidence.insert(0, f"child {child.argv[0]} (pid {child.pid}, `{show(' '.join(child.argv), target, 100)}`, "
                           f"seen by its PATH stand-in) during {child.during}: PATH={child.environ.get('PATH')!r} "
                           f"HOME={child.environ.get('HOME')!r}")
        return _judged(_path_home_problems(child.environ, str(shims.folder), parent_home, target), evidence)
