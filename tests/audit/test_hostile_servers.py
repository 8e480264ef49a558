"""Hostile servers: the audit completes within its timeout, says what happened, shows no traceback, leaves no process.

The audits mostly wait (on silence, on deadlines), so they are all started at
once, each through the real command, and each test then checks its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from audit_helpers import CORE_RULES, Run, hostile, run_cli, still_running

pytestmark = pytest.mark.slow  # hostile servers, each audited to its deadline

QUICK = ("--wait", "1", "--probe-timeout", "8", "--timeout", "30", "--root", ".", *(a for r in CORE_RULES for a in ("--rule", r)))

CASES = {
    "banner": ((), "TRN-001 FAIL (high, spec violation: universal, spec-must): 1 of"),
    "silent": ((), "did not complete the handshake: no answer"),
    "deaf": (("--no-read",), "did not complete the handshake: no answer"),
    "flood": ((), "did not complete the handshake: it flooded stdout"),
    "crash": ((), "exited with code 1 before answering; last stderr line: ModuleNotFoundError"),
    "huge_lines": ((), "20,971,"),
    "stubborn": ((), "TRN-002 FAIL (medium, recommendation: opinionated, practice)"),
    "leaky": ((), "secret canary came back"),
}


def _audit(root: Path, folder: Path, name: str) -> Run:
    args, _expected = CASES[name]
    script = "silent" if name == "deaf" else name
    command = hostile(script, *args, "--pidfile", str(folder / "pids"))
    return run_cli(root, "audit", "-o", str(folder / _worksheet(name)), *QUICK, "--", *command, limit=60)


def _worksheet(name: str) -> str:
    """The banner's terminal escapes go into a workbook: the format least forgiving of control characters."""
    return "audit.xlsx" if name == "banner" else "audit.csv"


@pytest.fixture(scope="module")
def audits(request: pytest.FixtureRequest, project_root: Path, tmp_path_factory: pytest.TempPathFactory):
    """Every selected hostile audit, started at once: name -> (folder, future)."""
    names = [item.callspec.params["name"] for item in request.session.items
             if getattr(item, "originalname", "") == "test_a_hostile_server_is_reported_on_not_waited_on"]
    with ThreadPoolExecutor(max_workers=max(1, len(names))) as pool:
        started: dict[str, tuple[Path, Future[Run]]] = {}
        for name in names:
            folder = tmp_path_factory.mktemp(f"hostile-{name}")
            started[name] = (folder, pool.submit(_audit, project_root, folder, name))
        yield started


@pytest.mark.parametrize("name", list(CASES))
def test_a_hostile_server_is_reported_on_not_waited_on(name: str, audits) -> None:
    _args, expected = CASES[name]
    folder, future = audits[name]
    run = future.result(timeout=120)
    pidfile, out = folder / "pids", folder / _worksheet(name)
    assert run.code == 1, run.text  # each of them breaks at least one HIGH rule of the baseline
    assert expected in run.stdout, run.text
    assert "Traceback (most recent call last)" not in run.text
    assert out.is_file()
    assert still_running(pidfile) == []


def test_terminal_escapes_from_a_server_do_not_break_the_workbook(project_root: Path, audits) -> None:
    folder, future = audits["banner"]
    run = future.result(timeout=120)
    assert run.code == 1 and "\x1b" not in run.stdout, run.text
    report = run_cli(project_root, "report", str(folder / "audit.xlsx"), limit=60)
    assert report.code == 1, report.text  # report reads the workbook back and agrees: a HIGH rule failed
    assert "FAIL TRN-001" in report.stdout


def test_the_whole_audit_keeps_to_its_time_budget(project_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.md"
    run = run_cli(project_root, "audit", "-o", str(out), "--wait", "1", "--timeout", "6", "--", *hostile("silent"), limit=40)
    assert run.code == 1, run.text
    assert run.seconds < 6 + 10  # the budget, plus start-up, the corpus and stopping what still ran
    assert "Traceback" not in run.text and out.is_file()


def test_a_flood_of_empty_lines_is_cut_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_handbook import wire

    monkeypatch.setattr(wire, "MAX_CAPTURE_LINES", 2000)  # the real cap, 200,000, takes too long to reach under load
    session = wire.WireSession(hostile("blank_flood"), cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    try:
        with pytest.raises(wire.WireTimeout, match="flooded stdout"):
            session.initialize(timeout=30)
        assert len(session.stdout) <= 2000
    finally:
        session.close(grace=0.2)


def test_stopping_the_auditor_stops_every_server_it_started(project_root: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    command = hostile("stubborn", "--pidfile", str(pidfile))
    argv = [sys.executable, "-m", "mcp_handbook.cli", "--root", str(project_root), "audit", "-o", str(tmp_path / "a.md"),
            "--", *command]
    auditor = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(pidfile.read_text().split() if pidfile.exists() else ()) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)  # wait until probes' servers (and their children) are running
        auditor.send_signal(signal.SIGTERM)
        _out, err = auditor.communicate(timeout=30)
    finally:
        if auditor.poll() is None:
            os.killpg(auditor.pid, signal.SIGKILL)
            auditor.communicate()
    assert auditor.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert still_running(pidfile) == []
