"""Prove one snippet: mount it into the reference server at its seam and run its rule's probe.

The verdict follows the ESLint convention: a WRONG snippet must FAIL its rule's probe *for one of
the probe's own reasons* (or the ones its fence names with ``expect=``), a CORRECT one must PASS.
A snippet is *broken*, which is never a pass, when it cannot load, when the server never starts
with it, when a WRONG block makes the probe fail only generically (the server hung, exited, the
probe gave up) and whenever the snippet raises in its own code an exception outside its seam's
contract: the reference server reports that as ``[snippet-raised]`` (see
``reference_server/snippet_guard.py``), for every seam alike.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..model import Rule, Snippet
from ..probes import PROBES, Finding, Target
from ..probes.support import GENERIC_REASONS, WireSession, WireTimeout, call_tool, failed, fill_arguments, list_tools
from ..seams import TOOL_SEAM
from .server_options import server_args, server_prefix

READY_MARK = '"event":"started"'
"""The reference server logs this once its seams are loaded and it is serving."""
PAGE_SIZE = 4
"""Tools per ``tools/list`` page in proofs: small enough that the server pages its list, so the
rules that apply only to servers that page (``pages-lists``) are proved against one that does."""
LOAD_FAILURE_EXIT = 3
"""The reference server's exit code when a seam cannot be loaded."""
SNIPPET_RAISED = re.compile(r"\[snippet-raised\] (?P<seam>\S+) (?P<type>[\w.]+): (?P<message>.*)")
"""The reference server's report of an exception raised in the mounted snippet's own code."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of proving one snippet."""

    snippet: Snippet
    expected: str
    """``FAIL`` for WRONG blocks, ``PASS`` for CORRECT ones."""
    finding: Finding | None
    """What the probe found (None when the snippet could not be run at all)."""
    broken: str = ""
    """Why the snippet itself is defective, when it is."""
    stderr_tail: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        """The reason the probe gave for a FAIL (what a WRONG block's proof established)."""
        return self.finding.reason if self.finding is not None else ""

    @property
    def ok(self) -> bool:
        return not self.broken and self.finding is not None and self.finding.status == self.expected


@functools.cache
def _server_pythonpath() -> str:
    """The folder that holds the reference_server package, whose bytecode is brought up to date on first use."""
    spec = importlib.util.find_spec("reference_server")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the reference_server package is not importable; run `pip install -e .`")
    package = Path(next(iter(spec.submodule_search_locations)))
    _compile_once(package)
    return str(package.parent)


def _compile_once(package: Path) -> None:
    """Write the package's bytecode now, once. Servers under test start with ``PYTHONDONTWRITEBYTECODE`` (so a server
    writes nothing of its own into a workspace) and so never write it themselves: in a fresh checkout every one of
    the thousands of servers the tests start would otherwise compile the whole package again (about a third of a
    proof's cost). A folder that cannot be written is left as it is: the servers then compile as before."""
    import compileall

    try:
        compileall.compile_dir(package, maxlevels=0, quiet=2)
    except OSError:
        pass


SERVER_PYTHON_FLAGS = ("-S",)
"""A proof's reference server starts without the ``site`` module. Its ``.pth`` hooks (here a sandbox's certificate
set-up) took about a third of each start, and the proofs start some 450 servers. Installed libraries a block imports
(``jsonschema``, say) stay importable: their folders are on ``PYTHONPATH``, through links (:func:`_link_libraries`)."""


@functools.cache
def _library_dirs() -> tuple[Path, ...]:
    """This interpreter's folders of installed packages (found on ``sys.path``; nothing of theirs is run)."""
    return tuple(Path(p) for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir())


def _link_libraries(parent: Path) -> list[str]:
    """Link each folder of installed packages into ``parent`` (``lib``, ``lib-2``, ...) and return the links: what a
    server shows of its ``PYTHONPATH`` (a proof may print its environment) is then the same on every machine and
    interpreter, as the link to the server's own source is."""
    links = []
    for n, folder in enumerate(_library_dirs(), 1):
        link = parent / ("lib" if n == 1 else f"lib-{n}")
        link.symlink_to(folder, target_is_directory=True)
        links.append(str(link))
    return links


def minimal_env(*, home: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment a server under test starts with: nothing inherited, only what the interpreter and
    the reference server need, ``HOME`` when given, then ``extra`` (a canary secret, say)."""
    search = os.pathsep.join([_server_pythonpath(), *map(str, _library_dirs())])  # a server started -S finds jsonschema
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": search}
    if home is not None:
        env["HOME"] = str(home)
    env.update(extra)
    return env


def snippet_source(snippet: Snippet) -> str:
    """The snippet padded so that its line numbers are the markdown file's line numbers."""
    return f"# {snippet.location}\n" + "\n" * (snippet.code_line - 2) + snippet.code


SEAM_CALLED_FILE = "HB_SEAM_CALLED"
"""The reference server appends each mounted seam's name to the file this variable names, the first time its snippet runs
(``reference_server.snippet_guard.CALLED_FILE``: the same name, read across the process boundary)."""


def _never_ran(snippet: Snippet, run: _Run) -> str:
    """Why the run proves nothing about ``snippet``'s code when the server never called it, else ``""``:
    a verdict about a block the probe never reached is about the server, not the block."""
    if snippet.seam in run.seams_called:
        return ""
    return (f"the probe never ran this block's code (the server never called the {snippet.seam} seam it mounts), "
            "so its verdict says nothing about the block")


def _raised(stderr: list[str], shown: tuple[str, ...] = ()) -> str:
    """What the snippet raised in its own code, as the reference server reported it, or ``""``;
    exceptions the block declares as its behaviour (``raises=``) are not defects."""
    for line in stderr:
        m = SNIPPET_RAISED.search(line)
        if m and m.group("type") not in shown:
            return f"the snippet raised {m.group('type')} in its own code: {m.group('message')}"
    return ""


def _reason_problem(snippet: Snippet, rule: Rule, finding: Finding) -> str:
    """Why a WRONG block's FAIL does not prove the rule: a generic reason, or not the one it names."""
    probe = PROBES[rule.probe]
    if finding.status != "FAIL" or snippet.kind != "wrong":
        return ""
    if finding.reason in GENERIC_REASONS or not finding.reason:
        return (f"the probe failed only generically ({finding.reason or 'no reason'}: {finding.summary}); "
                f"a WRONG block must fail for one of the rule's reasons: {', '.join(sorted(probe.reasons))}")
    wanted = snippet.expect or tuple(probe.reasons)
    if finding.reason not in wanted:
        return f"the probe failed for {finding.reason!r}, not for the reason the block names ({', '.join(wanted)})"
    return ""


@dataclass(frozen=True, slots=True)
class _Run:
    finding: Finding
    stderr: tuple[str, ...]
    exit_codes: tuple[int | None, ...]
    wrote_stdout: bool
    """Any session wrote anything to stdout: the server got as far as serving."""
    seams_called: frozenset[str] = frozenset()
    """The seams whose mounted snippet function ran at least once (the server's ``HB_SEAM_CALLED`` file)."""


PARSE_LOCK = threading.Lock()
"""Proofs run on a thread pool, so their parses take turns. CPython 3.11 builds a parsed tree's Python objects
with one recursion counter per interpreter; a garbage collection that runs a finalizer mid-parse can switch to
another thread's parse, and one of them fails with "SystemError: AST constructor recursion depth mismatch"
(python/cpython#106905). It happened here once, in a full run with one core kept busy."""


def tool_name(snippet: Snippet) -> str | None:
    """The name in a tool block's ``TOOL = {"name": ...}``, when it is written as a literal."""
    try:
        with PARSE_LOCK:
            tree = ast.parse(snippet.code)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TOOL" for t in node.targets) \
                and isinstance(node.value, ast.Dict):
            for key, value in zip(node.value.keys, node.value.values):
                if isinstance(key, ast.Constant) and key.value == "name" and isinstance(value, ast.Constant):
                    return value.value if isinstance(value.value, str) else None
    return None


def _smoke_call(target: Target, name: str, reached: Callable[[], bool]) -> None:
    """Call the mounted tool once with ordinary arguments from its own schema, so that its handler runs even
    when the rule's probe only reads the tool's definition: a handler that crashes in its own code then
    shows in the server's stderr as ``[snippet-raised]``, and the block is broken.

    ``reached()`` says whether the handler has run. When a wait ran out before it did (a server slow to start on
    a loaded machine), the call is made once more with three times the wait, so that "the server never called
    the block" is never a verdict about the machine's load. A tool that hangs once called has been reached."""
    if reached():
        return  # the probe itself called the tool: its handler has run, and what it raised is in stderr already
    for wait in (target.timeout, 3 * target.timeout):
        session = target.start()
        try:
            session.initialize(timeout=wait)
            tool = next((t for t in list_tools(session, timeout=wait) if t.get("name") == name), None)
            if tool is not None:
                call_tool(session, name, fill_arguments(tool), timeout=wait)
            return
        except WireTimeout:
            if reached():
                return  # a tool that hangs on ordinary arguments is the probe's business, not the smoke call's
        finally:
            session.close(grace=0.5)


ISOLATION_CHECK_SECONDS = 10.0


@functools.cache
def isolation_problem(prefix: tuple[str, ...]) -> str:
    """Why the command ``prefix`` cannot run a program (``true``) in isolation here, or ``""`` when it can.
    Checked once per prefix: a proof that needs it is never run without it."""
    if not prefix:
        return ""
    shown = " ".join((*prefix, "true"))
    try:
        done = subprocess.run([*prefix, "true"], capture_output=True, text=True, timeout=ISOLATION_CHECK_SECONDS,
                              env=minimal_env(), stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"cannot isolate the network to run this proof safely: `{shown}` could not run: {exc}"
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1:] or ["no message"]
        return (f"cannot isolate the network to run this proof safely: `{shown}` exited {done.returncode} "
                f"({said[0]})")
    return ""


def _run_probe(probe_name: str, seam_args: list[str], *, timeout: float, smoke_tool: str | None = None,
               prefix: tuple[str, ...] = ()) -> _Run:
    """Start the reference server (with optional seam arguments, under the command ``prefix`` when given) for one
    probe run (and the tool's smoke call)."""
    probe = PROBES[probe_name]
    with tempfile.TemporaryDirectory(prefix="hb-verify-") as tmp:
        parent = Path(tmp)
        workspace = parent / "ws"
        workspace.mkdir()
        canary = f"hb-canary-{secrets.token_hex(8)}"
        # the server is imported through a link in this folder, so the paths its tracebacks show are the same
        # length and text on every machine and checkout (recorded evidence is cut at a fixed width)
        (parent / "srv").symlink_to(_server_pythonpath(), target_is_directory=True)
        argv = [*prefix, sys.executable, *SERVER_PYTHON_FLAGS, "-m", "reference_server", "--workspace", str(workspace),
                "--test-tools", "--page-size", str(PAGE_SIZE), *seam_args]
        called = parent / "seams-called"
        search = os.pathsep.join([str(parent / "srv"), *_link_libraries(parent)])
        env = {**minimal_env(home=workspace, HB_CANARY=canary, API_TOKEN=canary), "PYTHONPATH": search,
               SEAM_CALLED_FILE: str(called)}
        transport: Literal["stdio", "http"] = "http" if "--http" in seam_args else "stdio"  # over HTTP the probe reads the URL it prints
        target = Target(argv=argv, workspace=workspace, env=env, canary=canary, timeout=timeout, root=workspace,
                        transport=transport)
        try:
            finding = probe.run(target)
            if smoke_tool is not None:
                _smoke_call(target, smoke_tool, lambda: called.exists() and TOOL_SEAM in called.read_text().split())
        except Exception as exc:  # a probe must never take the verifier down with it
            finding = failed("probe_error", f"the probe itself failed: {type(exc).__name__}: {exc}")
        finally:
            target.stop_all()
        return _Run(
            finding,
            tuple(target.stderr_of_all),
            tuple(s.proc.returncode for s in target.sessions if isinstance(s, WireSession)),
            any(s.stdout for s in target.sessions),
            frozenset(called.read_text(encoding="utf-8").split()) if called.exists() else frozenset(),
        )


LOADED_WAIT = 3
"""How many times the usual wait a control or a CORRECT block gets on its second run, after a first that did not
pass. A machine this loaded (the whole suite on a shared runner, a core kept busy) starts the reference server
slower than the wait; a defect fails the second run too, and WRONG blocks are not run twice (load makes a
server slower, never a WRONG block keep its rule)."""

_baselines: dict[tuple[str, ...], _Run] = {}
_baseline_locks: dict[tuple[str, ...], threading.Lock] = {}
_baseline_locks_lock = threading.Lock()


def baseline(probe_name: str, *, timeout: float = 5.0, args: list[str] | None = None,
             prefix: tuple[str, ...] = ()) -> _Run:
    """The probe against the unmodified reference server (started with ``args``, under ``prefix``), once per process.

    It must PASS: otherwise the probe or the server is broken, and a WRONG
    snippet "failing" would prove nothing. Each control has its own lock: blocks of one probe wait for its
    one control run, while the controls of other probes run at the same time on other threads.
    """
    key = (*prefix, probe_name, *(args or []))
    with _baseline_locks_lock:
        key_lock = _baseline_locks.setdefault(key, threading.Lock())
    with key_lock:
        if key not in _baselines:
            run = _run_probe(probe_name, list(args or []), timeout=timeout, prefix=prefix)
            if run.finding.status != "PASS":  # once more with LOADED_WAIT times the wait: never a verdict on the load
                run = _run_probe(probe_name, list(args or []), timeout=LOADED_WAIT * timeout, prefix=prefix)
            _baselines[key] = run
        return _baselines[key]


def verify(snippet: Snippet, rule: Rule, *, timeout: float = 5.0) -> Verdict:
    """Run ``rule``'s probe against the reference server with ``snippet`` mounted."""
    expected = "FAIL" if snippet.kind == "wrong" else "PASS"
    if rule.probe not in PROBES:
        return Verdict(snippet, expected, None, broken=f"rule {rule.id} names unknown probe {rule.probe!r}")
    if not snippet.seam:
        return Verdict(snippet, expected, None, broken="the snippet names no seam")
    prefix = tuple(server_prefix(rule))
    if problem := isolation_problem(prefix):
        return Verdict(snippet, expected, None, broken=problem)
    control = baseline(rule.probe, timeout=timeout, args=server_args(rule), prefix=prefix)
    if control.finding.status != "PASS":
        reason = f"the probe does not pass against the unmodified reference server ({control.finding.status}: {control.finding.summary})"
        return Verdict(snippet, expected, control.finding, broken=reason, stderr_tail=control.stderr[-8:])
    with tempfile.TemporaryDirectory(prefix="hb-snippet-") as tmp:
        snippet_file = Path(tmp) / f"snippet_{snippet.rule_id.replace('-', '_')}_{snippet.kind}{snippet.index}.py"
        snippet_file.write_text(snippet_source(snippet), encoding="utf-8")
        smoke = tool_name(snippet) if snippet.seam == TOOL_SEAM else None
        seam_args = [*server_args(rule), "--seam", f"{snippet.seam}={snippet_file}"]
        run = _run_probe(rule.probe, seam_args, timeout=timeout, smoke_tool=smoke, prefix=prefix)
        if snippet.kind == "correct" and run.finding.status != "PASS":  # as the control: never a verdict on the load
            run = _run_probe(rule.probe, seam_args, timeout=LOADED_WAIT * timeout, smoke_tool=smoke, prefix=prefix)
    stderr = list(run.stderr)
    if LOAD_FAILURE_EXIT in run.exit_codes:
        broken = next((ln for ln in stderr if "cannot load seam" in ln), "the reference server could not load the snippet")
    elif not run.wrote_stdout and not any(READY_MARK in ln for ln in stderr):
        broken = "the reference server never became ready with this snippet mounted (it crashed at start)"
    else:
        broken = _raised(stderr, snippet.raises) or _never_ran(snippet, run) or _reason_problem(snippet, rule, run.finding)
    return Verdict(snippet, expected, run.finding, broken=broken, stderr_tail=tuple(stderr[-8:]))
