"""Every format survives the trip: export, fill as a reviewer would, report the right counts and exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from export_helpers import FORMATS, fill, run, run_process

HIGH_FAIL = {
    "TRN-001": ("FAIL", "printed a banner | then JSON\nsecond line"),  # the auditor's spelling, a pipe and a newline
    "SEC-001": ("pass", "resolve_path uses is_relative_to"),
    "TRN-002": ("N/A", ""),
    "SEC-002": ("Fail", "inherits os.environ"),
}
NO_HIGH_FAIL = {"TRN-001": ("Pass", "one line per message"), "SEC-002": ("Fail", "inherits os.environ"), "TST-001": ("n/a", "")}


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_filled_worksheet_reports_counts_and_exits_1_on_a_high_failure(fmt: str, mini: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / f"ws.{fmt}"
    assert run("export", "worksheet", "-o", str(ws), root=mini, capsys=capsys)[0] == 0
    fill(ws, HIGH_FAIL)
    code, out, err = run("report", str(ws), "--format", "json", root=mini, capsys=capsys)
    assert (code, err) == (1, "")
    data = json.loads(out)
    assert data["counts"] == {
        "high": {"Pass": 1, "Fail": 1, "N/A": 0, "unfilled": 0},
        "medium": {"Pass": 0, "Fail": 0, "N/A": 1, "unfilled": 1},
        "low": {"Pass": 0, "Fail": 1, "N/A": 0, "unfilled": 0},
    }
    assert [f["id"] for f in data["findings"]["high"]] == ["TRN-001"]
    assert data["findings"]["high"][0]["evidence"] == "printed a banner | then JSON\nsecond line"
    assert [f["id"] for f in data["findings"]["low"]] == ["SEC-002"]
    assert [u["id"] for u in data["unfilled"]] == ["TST-001"]
    assert data["exit_code"] == 1 and data["since"] is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_worksheet_without_high_failures_exits_0(fmt: str, mini: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / f"ws.{fmt}"
    run("export", "worksheet", "-o", str(ws), root=mini, capsys=capsys)
    fill(ws, NO_HIGH_FAIL)
    code, out, _ = run("report", str(ws), root=mini, capsys=capsys)
    assert code == 0
    assert "HIGH: 0 fail, 1 pass, 0 n/a, 1 unfilled" in out
    assert "LOW: 1 fail, 0 pass, 0 n/a, 0 unfilled" in out
    assert ("  FAIL SEC-002  Build a minimal child environment  [recommendation: stack, practice, outside the "
            "baseline profile]\n       evidence: inherits os.environ") in out
    assert "Unfilled (2)\n  TRN-002  medium  Cap frame sizes\n  SEC-001  high    Contain paths in the workspace" in out


def test_text_report_groups_high_medium_low_then_unfilled(mini: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "ws.csv"
    run("export", "worksheet", "-o", str(ws), root=mini, capsys=capsys)
    fill(ws, HIGH_FAIL)
    code, out, _ = run("report", str(ws), root=mini, capsys=capsys)
    positions = [out.index(h) for h in ("\nHIGH: ", "\nMEDIUM: ", "\nLOW: ", "\nUnfilled (1)")]
    assert positions == sorted(positions)
    assert out.rstrip().endswith("1 HIGH item(s) of the baseline profile failed: exit 1") and code == 1


def test_a_filtered_worksheet_reports_only_its_rules(mini: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "ws.json"
    run("export", "worksheet", "-o", str(ws), "--gate", "security", root=mini, capsys=capsys)
    fill(ws, {"SEC-001": ("Fail", "startswith")})
    code, out, _ = run("report", str(ws), "--format", "json", root=mini, capsys=capsys)
    data = json.loads(out)
    assert code == 1 and data["filters"] == "gate=security"
    assert sum(sum(row.values()) for row in data["counts"].values()) == 2


def test_the_console_script_exits_1_on_a_high_failure(mini: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "ws.xlsx"
    run("export", "worksheet", "-o", str(ws), root=mini, capsys=capsys)
    fill(ws, HIGH_FAIL)
    result = run_process("report", str(ws), root=mini)
    assert result.returncode == 1, result.stderr
    assert "FAIL TRN-001" in result.stdout and "Traceback" not in result.stderr


def test_the_profile_decides_which_high_failures_gate_and_an_opinion_never_reads_as_a_violation(tmp_path: Path, capsys) -> None:
    from export_helpers import DEFAULT_RULES, write_handbook

    rules = {**DEFAULT_RULES, "TST-001": {**DEFAULT_RULES["TST-001"], "severity": "high"},
             "TRN-001": {**DEFAULT_RULES["TRN-001"], "basis": "spec-must"}}
    root = write_handbook(tmp_path / "hb", rules=rules)
    ws = tmp_path / "ws.csv"
    run("export", "worksheet", "-o", str(ws), root=root, capsys=capsys)
    fill(ws, {"TST-001": ("Fail", "no pipe test"), "SEC-001": ("Fail", "served ../etc"), "TRN-001": ("Pass", "")})
    verdicts = {}
    for profile in ("spec", "baseline", "full"):
        code, out, _ = run("report", str(ws), "--profile", profile, "--format", "json", root=root, capsys=capsys)
        data = json.loads(out)
        verdicts[profile] = (code, data["profile"], {f["id"]: (f["kind"], f["in_profile"]) for f in data["findings"]["high"]})
    assert verdicts["spec"] == (0, "spec", {"SEC-001": ("security finding", False), "TST-001": ("recommendation", False)})
    assert verdicts["baseline"] == (1, "baseline", {"SEC-001": ("security finding", True), "TST-001": ("recommendation", False)})
    assert verdicts["full"] == (1, "full", {"SEC-001": ("security finding", True), "TST-001": ("recommendation", True)})
    fill(ws, {"TST-001": ("Fail", "no pipe test"), "SEC-001": ("Pass", ""), "TRN-001": ("Pass", "")})
    code, out, _ = run("report", str(ws), root=root, capsys=capsys)
    assert code == 0
    assert out.rstrip().endswith("no HIGH item of the baseline profile failed: exit 0 "
                                 "(1 other HIGH failure(s) are recommendations outside the profile)")
    assert run("report", str(ws), "--profile", "full", root=root, capsys=capsys)[0] == 1
