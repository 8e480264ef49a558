"""Structured tool output against quirks of real third-party servers: TOOL-011 judges only the
specification's MUST (conforming structuredContent), TOOL-014 its SHOULD (the same JSON as text), and a
tool that is slow by design is not checked, never a FAIL of a rule about results.

Each test starts ``quirks/tool_mirror_plain.py`` and runs one probe on it directly, as the auditor does
(only read-only tools callable).
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_handbook.probes import PROBES, Finding, Target
from mcp_handbook.proving.verify import minimal_env

QUIRKS = Path(__file__).resolve().parent / "quirks"


@pytest.fixture
def run_probe(tmp_path: Path) -> Iterator:
    """``run_probe(probe, mode, timeout=)``: the probe's finding against ``quirks/tool_mirror_plain.py --mode MODE``."""
    targets: list[Target] = []

    def run(name: str, mode: str, *, timeout: float = 3.0) -> Finding:
        workspace = tmp_path / f"ws{len(targets)}"
        workspace.mkdir()
        canary = f"hb-canary-{secrets.token_hex(8)}"
        target = Target(argv=[sys.executable, str(QUIRKS / "tool_mirror_plain.py"), "--mode", mode],
                        workspace=workspace, env=minimal_env(home=workspace, HB_CANARY=canary), canary=canary,
                        allow_tool_calls=frozenset(), timeout=timeout)
        targets.append(target)
        try:
            return PROBES[name].run(target)
        finally:
            target.stop_all()

    yield run
    for target in targets:
        target.stop_all()


# -- 1. conforming structuredContent with a plain-text block: the MUST is kept, the SHOULD is not -------------

def test_conforming_structured_content_with_plain_text_passes_tool_011(run_probe) -> None:
    finding = run_probe("structured_output", "plain")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    assert any("read_multiple_files" in row and "not mirrored as text: TOOL-014's to judge" in row
               for row in finding.evidence), finding.evidence


def test_the_missing_text_mirror_fails_tool_014(run_probe) -> None:
    finding = run_probe("structured_output_mirrored", "plain")
    assert (finding.status, finding.reason) == ("FAIL", "structured_content_not_mirrored"), finding
    assert "1 tool(s)" in finding.summary, finding.summary
    assert any(row.startswith("read_multiple_files: no text block carries the structuredContent as JSON")
               for row in finding.evidence), finding.evidence


def test_structured_content_not_mirrored_is_tool_014s_reason_only() -> None:
    assert "structured_content_not_mirrored" not in PROBES["structured_output"].reasons
    assert "structured_content_not_mirrored" in PROBES["structured_output_mirrored"].reasons


# -- 2. a tool slow by design is not checked; the other tools are judged on a fresh session ---------------------

def test_a_slow_tool_is_not_checked_and_the_next_tool_is_judged(run_probe) -> None:
    finding = run_probe("structured_output", "slow", timeout=2.0)
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    assert any(row.startswith("not checked: rebuild_index did not answer within 2 s") for row in finding.evidence)
    assert any(row.startswith("read_multiple_files(") for row in finding.evidence), finding.evidence


def test_a_slow_tool_alone_is_not_checked_never_failed(run_probe) -> None:
    for name in ("structured_output", "structured_output_mirrored"):
        finding = run_probe(name, "slow-only", timeout=2.0)
        assert finding.status == "N/A", (name, finding.reason, finding.summary)
        assert finding.summary.startswith("not checked: rebuild_index did not answer within 2 s"), finding.summary
