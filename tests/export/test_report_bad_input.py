"""Bad worksheets: one clear message per problem, naming file, row and column; exit 2; no traceback; nothing written."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from export_helpers import FORMATS, fill, run, run_process
from openpyxl import load_workbook


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the worksheet's folder, so messages name it as a reviewer typed it: ws.csv."""
    monkeypatch.chdir(tmp_path)


def export(fmt: str, root: Path, folder: Path, capsys) -> Path:
    ws = folder / f"ws.{fmt}"
    assert run("export", "worksheet", "-o", str(ws), root=root, capsys=capsys)[0] == 0
    return ws


def report_problems(ws: Path, root: Path, capsys) -> list[str]:
    before = {p: p.read_bytes() for p in ws.parent.iterdir() if p.is_file()}
    code, out, err = run("report", ws.name, root=root, capsys=capsys)
    assert code == 2, out + err
    assert out == "" and "Traceback" not in err
    assert {p: p.read_bytes() for p in ws.parent.iterdir() if p.is_file()} == before, "report must not write anything"
    lines = err.splitlines()
    assert lines[-1].endswith("nothing was reported")
    return lines[:-1]


EXPECTED_PLACES = {
    # format -> (place of TRN-001's status, place of SEC-001's id)
    "csv": ("ws.csv: row 2, column H (status)", "ws.csv: row 4, column A (id)"),
    "xlsx": ("ws.xlsx: sheet Worksheet, row 2, column H (status)", "ws.xlsx: sheet Worksheet, row 4, column A (id)"),
    "md": ("ws.md: line 16, column 8 (status)", "ws.md: line 18, column 1 (id)"),  # the header has one line per review field
    "json": ("ws.json: item 1, field status", "ws.json: item 3, field id"),
}


def _rename_id(ws: Path, old: str, new: str) -> None:
    if ws.suffix == ".xlsx":
        wb = load_workbook(ws)
        for row in wb["Worksheet"].iter_rows(min_row=2):
            if row[0].value == old:
                row[0].value = new
        wb.save(ws)
    else:
        ws.write_text(ws.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


@pytest.mark.parametrize("fmt", FORMATS)
def test_bad_status_and_unknown_id_are_both_reported_at_their_cells(fmt: str, mini: Path, tmp_path: Path, capsys) -> None:
    ws = export(fmt, mini, tmp_path, capsys)
    fill(ws, {"TRN-001": ("Maybe", ""), "TRN-002": ("PASS", "")})
    _rename_id(ws, "SEC-001", "SEC-999")
    status_place, id_place = EXPECTED_PLACES[fmt]
    assert report_problems(ws, mini, capsys) == [
        f"{status_place}: status 'Maybe' is not one of Pass, Fail, N/A (any case), or empty while not yet judged",
        f"{id_place}: unknown rule id 'SEC-999': doctrine 0.1.0 has no such rule",
    ]


def test_a_renamed_column_is_named_with_what_replaced_it(mini: Path, tmp_path: Path, capsys) -> None:
    ws = export("csv", mini, tmp_path, capsys)
    ws.write_text(ws.read_text().replace(",status,", ",result,", 1))
    [problem] = report_problems(ws, mini, capsys)
    assert problem.startswith("ws.csv: row 1: missing column 'status' (found 'result' in column H: renamed?)")


def test_a_missing_column_in_a_workbook_is_reported(mini: Path, tmp_path: Path, capsys) -> None:
    ws = export("xlsx", mini, tmp_path, capsys)
    wb = load_workbook(ws)
    wb["Worksheet"].delete_cols(9)  # evidence
    wb.save(ws)
    [problem] = report_problems(ws, mini, capsys)
    assert problem.startswith("ws.xlsx: sheet Worksheet, row 1: missing column 'evidence'")


def test_a_markdown_table_missing_a_column_is_reported(mini: Path, tmp_path: Path, capsys) -> None:
    ws = export("md", mini, tmp_path, capsys)
    ws.write_text(ws.read_text().replace("| notes |", "| note |", 1))
    [problem] = report_problems(ws, mini, capsys)
    assert problem.startswith("ws.md: line 14: missing column 'notes' (found 'note' in column 10: renamed?)")


def test_a_duplicated_row_is_reported_where_it_repeats(mini: Path, tmp_path: Path, capsys) -> None:
    ws = export("csv", mini, tmp_path, capsys)
    lines = ws.read_text().splitlines()
    ws.write_text("\n".join([*lines, lines[1]]) + "\n")
    assert report_problems(ws, mini, capsys) == ["ws.csv: row 7, column A (id): rule TRN-001 is already on row 2"]


@pytest.mark.parametrize(
    ("fmt", "cut_after", "expected"),
    [
        ("csv", b"TRN-002,Cap fr", "ws.csv: row 3: has 2 fields, the header has 23 (is the file truncated?)"),
        ("md", b"| TRN-002 | Cap fr", "ws.md: line 17: the row does not end with | (is the file truncated, or a | in a cell not written as \\|?)"),
        ("json", b'"id": "TRN-0', "ws.json: line 26, column 13: is not valid JSON: Unterminated string starting at (is the file truncated?)"),
        ("xlsx", b"PK", "ws.xlsx: is not a readable XLSX workbook (damaged or truncated?): BadZipFile: File is not a zip file"),
    ],
)
def test_a_truncated_file_is_named_where_it_breaks(fmt: str, cut_after: bytes, expected: str, mini: Path, tmp_path: Path, capsys) -> None:
    ws = export(fmt, mini, tmp_path, capsys)
    data = ws.read_bytes()
    cut = data.index(cut_after) + len(cut_after) + (2000 if fmt == "xlsx" else 0)
    ws.write_bytes(data[:cut])
    assert report_problems(ws, mini, capsys) == [expected]


@pytest.mark.parametrize("fmt", ["csv", "md", "json"])
def test_a_file_that_is_not_utf8_names_the_line_and_column(fmt: str, mini: Path, tmp_path: Path, capsys) -> None:
    ws = export(fmt, mini, tmp_path, capsys)
    ws.write_bytes(ws.read_bytes().replace(b"Cap frame sizes", b"Cap fr\xe9me sizes"))
    [problem] = report_problems(ws, mini, capsys)
    line_no = next(i for i, line in enumerate(ws.read_bytes().split(b"\n"), 1) if b"\xe9" in line)
    column = ws.read_bytes().split(b"\n")[line_no - 1].index(b"\xe9") + 1
    assert problem == f"ws.{fmt}: line {line_no}, column {column}: the file is not UTF-8 (byte 0xe9); save it as UTF-8"


def test_an_empty_file_and_an_unknown_suffix_are_refused(mini: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "ws.csv").write_bytes(b"")
    assert report_problems(tmp_path / "ws.csv", mini, capsys) == ["ws.csv: the file is empty"]
    (tmp_path / "ws.csv").unlink()
    (tmp_path / "ws.txt").write_text("hello")
    [problem] = report_problems(tmp_path / "ws.txt", mini, capsys)
    assert problem.startswith("ws.txt: unknown worksheet format '.txt'")


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_worksheet_from_an_unknown_version_is_refused_at_its_stamp(fmt: str, mini: Path, tmp_path: Path, capsys) -> None:
    ws = export(fmt, mini, tmp_path, capsys)
    ws.write_text(ws.read_text().replace("0.1.0", "7.0.0"))
    place = {"csv": "ws.csv: row 2, column P (doctrine_version)", "json": "ws.json: field doctrine_version"}[fmt]
    assert report_problems(ws, mini, capsys) == [
        f"{place}: doctrine version '7.0.0' (commit unknown) is unknown here: not the current 0.1.0 and not in this repository's history"
    ]


def test_json_that_breaks_the_schema_names_the_item_and_field(mini: Path, tmp_path: Path, capsys) -> None:
    ws = export("json", mini, tmp_path, capsys)
    document = json.loads(ws.read_text())
    del document["items"][1]["notes"]
    document["items"][2]["evidence"] = 42
    ws.write_text(json.dumps(document))
    assert report_problems(ws, mini, capsys) == [
        "ws.json: item 2: does not match the worksheet schema: 'notes' is a required property",
        "ws.json: item 3, field evidence: does not match the worksheet schema: 42 is not of type 'string'",
    ]


def test_every_problem_of_a_badly_edited_csv_comes_in_one_run(mini: Path, tmp_path: Path, capsys) -> None:
    ws = export("csv", mini, tmp_path, capsys)
    rows = list(csv.DictReader(io.StringIO(ws.read_text())))
    rows[0]["status"], rows[2]["status"], rows[3]["id"], rows[4]["id"] = "ok", "done", "", "NOPE-1"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    ws.write_text(out.getvalue())
    problems = report_problems(ws, mini, capsys)
    assert [p.split(": ", 1)[0] for p in problems] == [
        "ws.csv", "ws.csv", "ws.csv", "ws.csv",
    ]
    assert [p.split(": ")[1] for p in problems] == [
        "row 2, column H (status)", "row 4, column H (status)", "row 5, column A (id)", "row 6, column A (id)",
    ]


def test_the_console_script_shows_no_traceback_for_garbage(mini: Path, tmp_path: Path) -> None:
    garbage = tmp_path / "ws.xlsx"
    garbage.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
    result = run_process("report", str(garbage), root=mini)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.startswith(f"{garbage}: is not a readable XLSX workbook")


def test_bad_input_in_json_mode_is_machine_readable(mini: Path, tmp_path: Path, capsys) -> None:
    ws = export("csv", mini, tmp_path, capsys)
    fill(ws, {"TRN-002": ("maybe", "")})
    code, out, _ = run("report", ws.name, "--format", "json", root=mini, capsys=capsys)
    data = json.loads(out)
    assert code == 2 and data["exit_code"] == 2
    assert data["problems"] == [{
        "place": "ws.csv: row 3, column H (status)",
        "message": "status 'maybe' is not one of Pass, Fail, N/A (any case), or empty while not yet judged",
        "text": "ws.csv: row 3, column H (status): status 'maybe' is not one of Pass, Fail, N/A (any case), or empty while not yet judged",
    }]
