"""Judge one block that no probe proves: run it (Python) or check it with its language's tool, and compare the
outcome with what its kind and its promise call for.

* A block with ``norun=`` is not run; its reason is shown instead.
* Python without ``promise=``: it must run to the end in a process of its own (a temporary folder, a small
  environment, a deadline), whatever its kind.
* Python with ``promise=``: a CORRECT block (or an example) must keep the promise; a WRONG block must break it
  for one of the promise's reasons. A block that raises, or a check that raises, is broken either way.
* Other languages: the check in :data:`.languages.LANGUAGE_CHECKS` must find nothing.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..proving.evidence import provable as runs_elsewhere  # noqa: F401 - what a probe proves, the tests do not run here
from ..model import Rule, Snippet
from .languages import LANGUAGE_CHECKS
from . import load_all
from .registry import PRELUDE_MODULES, PROMISES

load_all()  # judging a block needs every promise's reasons and seconds

DEFAULT_SECONDS = 30.0
"""How long a block without a promise may run."""
TOOLS_DIR = Path(__file__).resolve().parents[2]
"""The folder holding the ``mcp_handbook`` package, put on the block process's path."""


@dataclass(frozen=True, slots=True)
class BlockVerdict:
    """What running one block showed."""

    block: Snippet
    ok: bool
    outcome: str
    """``ran``, ``kept``, ``broke``, ``raised``, ``timeout``, ``checked``, ``refused`` or ``not run``."""
    message: str = ""
    """What went wrong (or what was seen), for the test report."""
    seconds: float = 0.0


def _library_paths() -> list[str]:
    """Where this Python's installed libraries are: the block's process starts without ``site`` (``-S``: its ``.pth``
    hooks cost more than most blocks), so they are named on its path instead."""
    import site

    found = [*site.getsitepackages(), site.getusersitepackages()]
    return [p for p in dict.fromkeys(found) if os.path.isdir(p)]


def _environment(home: str) -> dict[str, str]:
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "VIRTUAL_ENV") if k in os.environ}
    path = os.pathsep.join(p for p in (str(TOOLS_DIR), os.environ.get("PYTHONPATH", ""), *_library_paths()) if p)
    return {**keep, "HOME": home, "TMPDIR": home, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def _stop(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)  # its own session: the block's children go too
    except ProcessLookupError:
        pass
    process.wait()


def run_python(block: Snippet, seconds: float) -> dict[str, str]:
    """Run a Python block in a process of its own; return the child's outcome (see :mod:`.child`)."""
    modules = {PRELUDE_MODULES[n] for n in block.needs if n in PRELUDE_MODULES}
    modules |= {PROMISES[block.promise].source_file} if block.promise in PROMISES else set()
    job = {"code": block.code, "path": block.location.path, "line": block.code_line, "needs": list(block.needs),
           "promise": block.promise, "modules": sorted(modules)}
    with tempfile.TemporaryDirectory(prefix="hb-block-") as folder:
        process = subprocess.Popen(
            [sys.executable, "-S", "-m", "mcp_handbook.promises.child"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=folder, env=_environment(folder), start_new_session=True,
        )
        try:
            out, err = process.communicate(json.dumps(job).encode(), timeout=seconds)
        except subprocess.TimeoutExpired:
            _stop(process)
            return {"status": "timeout", "error": f"still running after {seconds:g} s"}
        _stop(process)  # it ended; whatever it started in its session ends too
    last = out.decode("utf-8", "replace").strip().rpartition("\n")[2]
    try:
        return json.loads(last)
    except json.JSONDecodeError:
        tail = err.decode("utf-8", "replace")[-2000:]
        return {"status": "raised", "where": "block", "error": f"the block's process died (exit {process.returncode}): {tail}"}


def _python_verdict(block: Snippet, outcome: dict[str, str], began: float) -> BlockVerdict:
    status = outcome.get("status", "raised")
    seconds = round(time.monotonic() - began, 2)
    if status in ("raised", "timeout"):
        where = "its promise check" if outcome.get("where") == "check" else "its own code"
        text = outcome.get("traceback") or outcome.get("error", "")
        return BlockVerdict(block, False, status, f"{status} in {where}: {outcome.get('error', '')}\n{text}".strip(), seconds)
    if not block.promise:
        return BlockVerdict(block, True, "ran", "ran to the end in a process of its own", seconds)
    if block.kind == "wrong":
        reasons = PROMISES[block.promise].reasons
        if status == "broke" and outcome.get("reason") in reasons:
            return BlockVerdict(block, True, "broke", f"broke promise {block.promise}: {outcome['reason']}: {outcome.get('detail', '')}", seconds)
        return BlockVerdict(block, False, status, f"a WRONG block must break promise {block.promise}; it kept it", seconds)
    if status == "kept":
        return BlockVerdict(block, True, "kept", f"kept promise {block.promise}", seconds)
    return BlockVerdict(block, False, status, f"a {block.kind.upper()} block must keep promise {block.promise}; it broke it: "
                        f"{outcome.get('reason')}: {outcome.get('detail', '')}", seconds)


def judge_block(rule: Rule, block: Snippet) -> BlockVerdict:
    """Run or check one block that no probe proves, and say whether it did what its kind calls for."""
    began = time.monotonic()
    if block.norun:
        return BlockVerdict(block, True, "not run", block.norun)
    if block.language == "python":
        seconds = PROMISES[block.promise].seconds if block.promise in PROMISES else DEFAULT_SECONDS
        return _python_verdict(block, run_python(block, seconds), began)
    check = LANGUAGE_CHECKS.get(block.language)
    if check is None:
        return BlockVerdict(block, False, "refused", f"nothing checks a {block.language or 'plain'} block: say why with norun=")
    problem = check(block.code)
    seconds = round(time.monotonic() - began, 2)
    return BlockVerdict(block, problem is None, "checked" if problem is None else "refused", problem or "checked", seconds)


