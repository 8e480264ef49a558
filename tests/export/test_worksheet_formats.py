"""Each worksheet format has its documented shape, its stamp, its filters, and is written all or nothing."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import jsonschema
import pytest
from export_helpers import FORMATS, fill, run, run_process
from openpyxl import load_workbook

from mcp_handbook import load_corpus
from mcp_handbook.export import COLUMNS, STATUSES, WRITERS, load_schema
from mcp_handbook.report import make_report


def export(root: Path, out: Path, capsys, *args: str) -> Path:
    code, stdout, stderr = run("export", "worksheet", "-o", str(out), *args, root=root, capsys=capsys)
    assert code == 0, stderr
    assert stdout.startswith(f"wrote {out} (")
    return out


def test_json_worksheet_matches_its_shipped_schema(mini: Path, tmp_path: Path, capsys) -> None:
    document = json.loads(export(mini, tmp_path / "ws.json", capsys, "--severity", "high", "--severity", "low").read_text())
    jsonschema.validate(document, load_schema("worksheet"))
    assert document["format"] == "mcp-handbook-worksheet" and document["doctrine_version"] == "0.1.0"
    assert document["filters"] == {"profile": [], "scope": [], "stack": [], "gate": [], "severity": ["high", "low"], "without": []}
    assert [i["id"] for i in document["items"]] == ["TRN-001", "SEC-001", "SEC-002"]
    assert all(list(i) == list(COLUMNS) for i in document["items"])


def test_the_schema_rejects_a_worksheet_that_lost_its_stamp(mini: Path, tmp_path: Path, capsys) -> None:
    document = json.loads(export(mini, tmp_path / "ws.json", capsys).read_text())
    del document["doctrine_version"]
    with pytest.raises(jsonschema.ValidationError, match="'doctrine_version' is a required property"):
        jsonschema.validate(document, load_schema("worksheet"))


def test_csv_repeats_the_whole_stamp_on_every_row(mini: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")  # 2026-01-01
    out = export(mini, tmp_path / "ws.csv", capsys, "--gate", "security", "--scope", "stack")
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["id"] for r in rows] == ["SEC-002"]
    assert list(rows[0]) == [*COLUMNS, "doctrine_version", "commit", "date", "filters", "server_name", "server_version",
                             "reviewer", "server_transport"]
    assert (rows[0]["doctrine_version"], rows[0]["commit"], rows[0]["date"], rows[0]["filters"]) == (
        "0.1.0", "unknown", "2026-01-01", "scope=stack; gate=security",
    )


def test_markdown_header_block_carries_the_stamp(mini: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    text = export(mini, tmp_path / "ws.md", capsys, "--stack", "Python").read_text()
    assert text.startswith(
        "# MCP server audit worksheet\n\n- Doctrine version: 0.1.0\n- Commit: unknown\n- Date: 2026-01-01\n- Filters: stack=Python\n"
    )


def test_xlsx_restricts_status_colours_it_and_freezes_the_header(mini: Path, tmp_path: Path, capsys) -> None:
    wb = load_workbook(export(mini, tmp_path / "ws.xlsx", capsys))
    assert wb.sheetnames == ["Worksheet", "Summary", "Stamp"]
    ws = wb["Worksheet"]
    assert [c.value for c in ws[1]] == list(COLUMNS) and ws.freeze_panes == "A2"
    [validation] = ws.data_validations.dataValidation
    assert validation.type == "list" and validation.formula1 == '"Pass,Fail,N/A"' and validation.showErrorMessage
    assert str(validation.sqref) == "H2:H6"
    rules = {r.formula[0]: r.dxf.fill.fgColor.rgb for cf in ws.conditional_formatting for r in cf.rules}
    assert set(rules) == {f'$H2="{s}"' for s in STATUSES}
    assert len(set(rules.values())) == 3, "each status has its own colour"
    assert {str(cf.sqref) for cf in ws.conditional_formatting} == {"A2:O6"}
    assert ws.column_dimensions["B"].width >= 40 and ws.column_dimensions["I"].width >= 40


def test_xlsx_stamp_sheet_holds_version_commit_date_filters_and_what_was_reviewed(mini: Path, tmp_path: Path, capsys) -> None:
    wb = load_workbook(export(mini, tmp_path / "ws.xlsx", capsys, "--severity", "medium"))
    stamp = {row[0]: row[1] for row in wb["Stamp"].iter_rows(min_row=2, values_only=True)}
    assert set(stamp) == {"doctrine_version", "commit", "date", "filters", "server_name", "server_version", "reviewer",
                         "server_transport"}
    assert stamp["doctrine_version"] == "0.1.0" and stamp["filters"] == "severity=medium"
    assert "Doctrine 0.1.0" in wb["Summary"]["A2"].value


# A tiny evaluator for exactly the formulas the summary sheet uses, so the test proves the
# formulas count what the report counts without a spreadsheet application.
RANGE = r"'?(\w+)'?!\$([A-Z]+)\$(\d+):\$([A-Z]+)\$(\d+)"


def _column(ws, letter: str, first: int, last: int) -> list[str]:
    return [str(ws[f"{letter}{r}"].value or "") for r in range(int(first), int(last) + 1)]


def _evaluate(wb, sheet, formula: str):
    if m := re.fullmatch(rf'=COUNTIFS\({RANGE},"(\w+)",{RANGE},"([^"]*)"\)', formula):
        s1, c1, a1, _, b1, wanted1, s2, c2, a2, _, b2, wanted2 = m.groups()
        left, right = _column(wb[s1], c1, a1, b1), _column(wb[s2], c2, a2, b2)
        return sum(1 for x, y in zip(left, right) if x.lower() == wanted1.lower() and y.lower() == wanted2.lower())
    if m := re.fullmatch(r"=SUM\(([A-Z])(\d+):([A-Z])(\d+)\)", formula):
        c1, r1, c2, r2 = m.groups()
        cells = [f"{chr(c)}{r}" for c in range(ord(c1), ord(c2) + 1) for r in range(int(r1), int(r2) + 1)]
        return sum(_evaluate(wb, sheet, sheet[c].value) for c in cells)
    raise AssertionError(f"unexpected formula {formula}")


def test_xlsx_summary_formulas_count_what_the_report_counts(mini: Path, tmp_path: Path, capsys) -> None:
    ws = export(mini, tmp_path / "ws.xlsx", capsys)
    fill(ws, {"TRN-001": ("Fail", "x"), "SEC-001": ("pass", ""), "TRN-002": ("N/A", ""), "SEC-002": ("Fail", "")})
    wb = load_workbook(ws)
    summary = wb["Summary"]
    header = [c.value for c in summary[5]]
    assert header == ["severity", "Pass", "Fail", "N/A", "unfilled", "total"]
    computed = {
        row[0].value.lower(): {header[i]: _evaluate(wb, summary, row[i].value) for i in range(1, 5)}
        for row in summary.iter_rows(min_row=6, max_row=8)
    }
    report = make_report(ws, root=mini, current=load_corpus(mini))
    assert computed == {sev: dict(zip(header[1:5], counts.values())) for sev, counts in report.counts().items()}
    assert _evaluate(wb, summary, summary["F9"].value) == 5  # every row counted once in the total


@pytest.mark.parametrize("fmt", FORMATS)
def test_exports_are_reproducible_under_source_date_epoch(fmt: str, mini: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    first = export(mini, tmp_path / f"a.{fmt}", capsys).read_bytes()
    second = export(mini, tmp_path / f"b.{fmt}", capsys).read_bytes()
    assert first == second


def test_a_failing_export_leaves_the_old_file_and_no_temp_file(mini: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    out = export(mini, tmp_path / "ws.md", capsys)
    before = out.read_bytes()

    def broken(rows, stamp):
        raise OSError(28, "No space left on device")

    monkeypatch.setitem(WRITERS, "md", broken)
    code, _, err = run("export", "worksheet", "-o", str(out), root=mini, capsys=capsys)
    assert code == 2 and "No space left on device" in err and "Traceback" not in err
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hb", "ws.md"]


def test_unknown_filter_values_and_formats_are_usage_errors(mini: Path, tmp_path: Path, capsys) -> None:
    code, _, err = run("export", "worksheet", "-o", str(tmp_path / "ws.csv"), "--gate", "secruity", root=mini, capsys=capsys)
    assert code == 2 and "unknown gate 'secruity' (known: transport, security, testing)" in err
    code, _, err = run("export", "worksheet", "-o", str(tmp_path / "ws.txt"), root=mini, capsys=capsys)
    assert code == 2 and "cannot tell the format from the suffix" in err
    assert not any(p.name.startswith("ws") for p in tmp_path.iterdir())


def test_export_warns_about_content_that_does_not_lint_and_still_writes(mini: Path, tmp_path: Path, capsys) -> None:
    rule = mini / "content" / "rules" / "transport" / "trn-001.md"
    rule.write_text(rule.read_text().replace("## References", "## Sources"))
    code, _, err = run("export", "worksheet", "-o", str(tmp_path / "ws.csv"), root=mini, capsys=capsys)
    assert code == 0 and "warning: the content has 1 problem(s) (run `mcp-handbook check`)" in err
    assert (tmp_path / "ws.csv").read_text().count("\n") == 6


def test_usage_errors_are_clean_when_run_as_a_module(mini: Path, tmp_path: Path) -> None:
    """Under `python -m mcp_handbook.cli`, main() lives in __main__: the command must report its own errors."""
    result = run_process("export", "worksheet", "-o", str(tmp_path / "ws.csv"), "--severity", "severe", root=mini)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("mcp-handbook: unknown severity 'severe'")
    result = run_process("report", str(tmp_path / "ws.csv"), root=tmp_path / "nowhere")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"mcp-handbook: no handbook at {tmp_path / 'nowhere'}")
