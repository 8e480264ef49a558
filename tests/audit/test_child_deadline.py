"""SEC-006 for a tool with no timeout argument: the program it starts by name is made to stall through its PATH
stand-in, and the server must answer before the stall ends, with the child gone (``quirks/sec_child_deadline.py``)."""

from __future__ import annotations

import re
import secrets
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_handbook.probes import PROBES
from mcp_handbook.probes.security._shims import PathShims
from mcp_handbook.probes.support import Finding, Target
from mcp_handbook.proving.verify import minimal_env

QUIRKS = Path(__file__).resolve().parent / "quirks"
pytestmark = [
    pytest.mark.slow,  # each waits out a stalled child or a probe's deadline (2 to 6 s): a run of the probe
    pytest.mark.skipif(shutil.which("true", path="/usr/bin:/bin") is None, reason="needs true on /usr/bin:/bin"),
    pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="tells a stalled stand-in by /proc (Linux)"),
]
WAIT = 2.0
"""The probe's wait: the stall is three times it (6 s), the fixture's own deadline 2 s."""


@pytest.fixture
def run_probe(tmp_path: Path) -> Iterator:
    targets: list[Target] = []

    def run(mode: str) -> tuple[Finding, float]:
        workspace = tmp_path / f"ws-{len(targets)}"
        workspace.mkdir()
        canary = f"hb-canary-{secrets.token_hex(8)}"
        target = Target(argv=[sys.executable, str(QUIRKS / "sec_child_deadline.py"), mode], workspace=workspace,
                        env=minimal_env(home=workspace, HB_CANARY=canary), canary=canary, timeout=WAIT,
                        allow_tool_calls=frozenset())
        targets.append(target)
        began = time.monotonic()
        try:
            return PROBES["child_timeout"].run(target), time.monotonic() - began
        finally:
            target.stop_all()

    yield run
    for target in targets:
        target.stop_all()


def _stand_ins_left(finding: Finding) -> list[int]:
    """The stalled children the finding names that still run a stand-in (a probe folder hb-shims-... on their
    command line): only this probe's own, so tests running side by side do not see each other's."""
    row = next(r for r in finding.evidence if r.startswith("stalled "))
    pids = [int(p) for p in re.findall(r"\d+", row.split("pid", 1)[1].split("(", 1)[0])]
    left = []
    for pid in pids:
        try:
            if b"/hb-shims-" in Path(f"/proc/{pid}/cmdline").read_bytes():
                left.append(pid)
        except OSError:
            continue
    return left


def test_a_child_waited_on_without_a_deadline_fails_and_the_stalled_stand_in_is_gone(run_probe) -> None:
    finding, seconds = run_probe("--no-deadline")
    assert (finding.status, finding.reason) == ("FAIL", "no_deadline"), finding
    assert "repo_status" in finding.summary and "true" in finding.summary and "6 s" in finding.summary
    assert seconds < 6 * WAIT + 10  # bounded: the stall (3 x the wait) and a grace, not the child's whim
    assert _stand_ins_left(finding) == []


def test_a_fixed_internal_deadline_that_kills_the_child_passes(run_probe) -> None:
    finding, _ = run_probe("--deadline")
    assert finding.status == "PASS", finding
    assert any("stalled true" in row for row in finding.evidence)


def test_a_deadline_that_answers_but_leaves_the_child_running_fails(run_probe) -> None:
    finding, _ = run_probe("--abandon")
    assert (finding.status, finding.reason) == ("FAIL", "child_survived_timeout"), finding
    assert _stand_ins_left(finding) == []


def test_a_server_that_starts_no_child_is_not_checked_and_says_why(run_probe) -> None:
    finding, _ = run_probe("--no-child")
    assert finding.status == "N/A", finding
    assert "started a program by name" in finding.summary
    assert any("stand-ins" in row and "true" in row for row in finding.evidence)


def test_a_stall_ends_when_it_is_lifted() -> None:
    import subprocess

    with PathShims("/usr/bin:/bin", names=("true",)) as shims:
        shims.stall("true", 30)
        proc = subprocess.Popen(["true"], env={"PATH": shims.path})
        time.sleep(0.5)
        assert proc.poll() is None and shims.stalled(proc.pid)
        began = time.monotonic()
        shims.unstall()
        assert proc.wait(timeout=10) == 0 and time.monotonic() - began < 5
