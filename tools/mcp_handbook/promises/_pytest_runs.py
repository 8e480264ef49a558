"""Running a block of the testing gate: the block is a test file, written to a fresh folder beside the files its
check gives it and run with ``pytest`` in a process group of its own, bounded in time; the JUnit report says which
tests passed, failed or could not run. A CORRECT test file passes against the good server and fails against the
bad one (:func:`judge_runs`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from .registry import Broken

PYTEST_SECONDS = 45.0
"""How long one pytest run of a block may take before it is stopped and counted as failed."""


TOOLS_DIR = str(Path(__file__).resolve().parents[2])
"""The folder holding ``reference_server`` and ``mcp_handbook``: the servers the checks start import from it."""


def block_source(block: ModuleType) -> str:
    """The source of the block the check was handed, as written in its markdown (:mod:`.child` keeps it on the
    module as ``__block_source__``)."""
    return block.__block_source__


@dataclass(frozen=True, slots=True)
class PytestRun:
    """What one pytest run of a test file showed."""

    passed: int
    failed: list[str]
    """Tests that failed (an assertion, or an exception in the test's own body), by name."""
    errors: list[str]
    """Tests that could not run (a fixture failed, the file does not import), by name."""
    output: str
    timed_out: bool = False

    @property
    def green(self) -> bool:
        return not self.timed_out and not self.failed and not self.errors and self.passed > 0

    def failures(self) -> str:
        if self.timed_out:
            return f"the run did not end within {PYTEST_SECONDS:g} s"
        return ", ".join(self.failed) or "no test failed"


def run_pytest(source: str, files: dict[str, str], env: dict[str, str] | None = None) -> PytestRun:
    """Write ``source`` as ``test_block.py`` beside ``files`` (name -> text) in a fresh folder, run pytest there
    in a process group of its own, and read its JUnit report. Plugins are not auto-loaded (the handbook's own
    plugin would collect the wrong things); anyio's is loaded for async tests."""
    folder = Path(tempfile.mkdtemp(prefix="hb-tests-", dir=".")).resolve()
    for name, text in {**files, "test_block.py": source}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    report = folder / "report.xml"
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "anyio.pytest_plugin",
            f"--junitxml={report}", f"--basetemp={folder / 'tmp'}", "test_block.py"]
    environment = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1",
                   "PYTHONPATH": os.pathsep.join(p for p in (TOOLS_DIR, os.environ.get("PYTHONPATH", "")) if p),
                   **(env or {})}
    process = subprocess.Popen(argv, cwd=folder, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = process.communicate(timeout=PYTEST_SECONDS)
        timed_out = False
    except subprocess.TimeoutExpired:
        out, timed_out = b"", True
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the servers the tests started go with it
    except ProcessLookupError:
        pass
    process.wait()
    output = out.decode("utf-8", "replace")[-3000:]
    if timed_out:
        return PytestRun(0, [], [], output, timed_out=True)
    if not report.exists():
        raise RuntimeError(f"pytest wrote no report (exit {process.returncode}):\n{output}")
    passed, failed, errors = 0, [], []
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        name = case.get("name", "?")
        if case.find("error") is not None:
            errors.append(name)
        elif case.find("failure") is not None:
            failed.append(name)
        elif case.find("skipped") is None:
            passed += 1
    if errors or (process.returncode not in (0, 1)):
        raise RuntimeError(f"the tests could not run (exit {process.returncode}, errors in {errors}):\n{output}")
    return PytestRun(passed, failed, errors, output)


def judge_runs(good: PytestRun, bad: PytestRun, missed: str, bug: str) -> None:
    """A test file must pass against the good server and fail against the bad one."""
    if not good.green:
        raise Broken("fails_against_correct_server", f"{good.failures()}\n{good.output[-1200:]}")
    if bad.green:
        raise Broken(missed, f"every test passed against {bug}")


def reference_server_command(extra: str = "") -> str:
    return f"[sys.executable, '-m', 'reference_server', '--test-tools'{extra}]"
