"""Files no reader can be killed or held up by: nested too deep, too large, too many rows, a zip bomb, a pipe. Each is
one clear problem and exit 2, never a traceback, and each is refused quickly."""

from __future__ import annotations

import io
import json
import os
import time
import zipfile
from pathlib import Path

import pytest
from export_helpers import run, run_process

from mcp_handbook.report.read import MAX_FILE_BYTES, MAX_ROWS


@pytest.fixture(autouse=True)
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _problems(name: str, root: Path, capsys) -> list[str]:
    began = time.monotonic()
    code, out, err = run("report", name, root=root, capsys=capsys)
    assert time.monotonic() - began < 20
    assert code == 2 and out == "" and "Traceback" not in err, out + err
    assert err.splitlines()[-1].endswith("nothing was reported")
    return err.splitlines()[:-1]


DEEP = 200_000


@pytest.mark.parametrize("where", ["top", "items", "a field"])
def test_json_nested_200000_deep_is_one_problem_not_a_recursion_error(where: str, mini: Path, tmp_path: Path, capsys) -> None:
    nest = "[" * DEEP + "]" * DEEP
    text = {"top": nest,
            "items": '{"doctrine_version": "0.1.0", "items": ' + nest + "}",
            "a field": '{"doctrine_version": "0.1.0", "items": [{"id": "TRN-001", "status": ' + nest + "}]}"}[where]
    (tmp_path / "deep.json").write_text(text)
    assert _problems("deep.json", mini, capsys) == [
        "deep.json: is not a worksheet: its JSON is nested more than 256 levels deep (a worksheet's is 3)"]


def test_the_cli_reads_a_deep_file_without_a_traceback(mini: Path, tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text("[" * DEEP + "]" * DEEP)
    done = run_process("report", "deep.json", root=mini)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "nested more than 256 levels deep" in done.stderr


def test_a_schema_problem_does_not_quote_a_huge_value_whole(mini: Path, tmp_path: Path, capsys) -> None:
    ws = {"doctrine_version": "0.1.0", "items": [{"id": "TRN-001", "status": ["x" * 100_000] * 3}]}
    (tmp_path / "ws.json").write_text(json.dumps(ws))
    problems = _problems("ws.json", mini, capsys)
    assert problems and max(len(p) for p in problems) < 1000


@pytest.mark.parametrize("fmt", ["csv", "md", "json"])
def test_more_rows_than_any_worksheet_has_are_not_read(fmt: str, mini: Path, tmp_path: Path, capsys) -> None:
    rows = MAX_ROWS + 5
    if fmt == "csv":
        text = "id,title,status,doctrine_version\n" + "TRN-001,t,Pass,0.1.0\n" * rows
    elif fmt == "md":
        text = "- Doctrine version: 0.1.0\n\n| id | status |\n|---|---|\n" + "| TRN-001 | Pass |\n" * rows
    else:
        text = json.dumps({"doctrine_version": "0.1.0", "items": [{"id": "TRN-001", "status": "Pass"}] * rows})
    (tmp_path / f"ws.{fmt}").write_text(text)
    problems = _problems(f"ws.{fmt}", mini, capsys)
    assert len(problems) == 1 and f"more than {MAX_ROWS:,}" in problems[0], problems


def test_a_file_larger_than_any_worksheet_is_not_read(mini: Path, tmp_path: Path, capsys) -> None:
    with open(tmp_path / "big.csv", "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk is spent on it
    assert _problems("big.csv", mini, capsys) == [
        "big.csv: the file is larger than 32 MiB; a worksheet is far smaller (is it the right file?)"]


def test_a_line_longer_than_any_row_is_not_split(mini: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "ws.md").write_text("- Doctrine version: 0.1.0\n\n|" + "x" * (2 * 1024 * 1024) + "|\n")
    [problem] = _problems("ws.md", mini, capsys)
    assert problem.startswith("ws.md: line 3: the line is longer than 1,048,576 characters")


def test_a_workbook_that_unpacks_to_gigabytes_is_not_opened(mini: Path, tmp_path: Path, capsys) -> None:
    buffer = io.BytesIO()
    with (zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
          archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as part):
        block = b"\0" * (1 << 20)
        for _ in range(300):  # 300 MiB of zeros, a few hundred kilobytes packed
            part.write(block)
    (tmp_path / "ws.xlsx").write_bytes(buffer.getvalue())
    assert _problems("ws.xlsx", mini, capsys) == [
        "ws.xlsx: the workbook unpacks to more than 256 MiB; a worksheet unpacks to under one (is it the right file?)"]


def test_a_pipe_is_refused_not_waited_on(mini: Path, tmp_path: Path, capsys) -> None:
    os.mkfifo(tmp_path / "ws.csv")  # nobody writes to it: opening it would wait for ever
    assert _problems("ws.csv", mini, capsys) == [
        "ws.csv: is not a regular file (a folder, a pipe or a device): a worksheet is a file"]
