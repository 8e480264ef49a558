"""What was reviewed (server name and version, reviewer) travels in every worksheet format and comes back in
the report; a worksheet exported before these fields existed still reports. A stack filter keeps the general
rules, in the CLI and in the skill bundle alike."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import jsonschema
import pytest
from export_helpers import DEFAULT_RULES, FORMATS, fill, run, write_handbook
from openpyxl import load_workbook

from mcp_handbook.export import REVIEW_FIELDS, load_schema

REVIEW_ARGS = ("--server-name", "Acme files", "--server-version", "1.4.2 (abc123)", "--reviewer", "Ada Lovelace")
REVIEW = {"server_name": "Acme files", "server_version": "1.4.2 (abc123)", "reviewer": "Ada Lovelace"}


def export(root: Path, out: Path, capsys, *args: str) -> Path:
    code, _, err = run("export", "worksheet", "-o", str(out), *args, root=root, capsys=capsys)
    assert code == 0, err
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_review_record_goes_through_every_format_into_the_report(fmt: str, mini: Path, tmp_path: Path, capsys) -> None:
    ws = export(mini, tmp_path / f"ws.{fmt}", capsys, *REVIEW_ARGS)
    fill(ws, {"TRN-001": ("Pass", "one line per message")})
    code, out, err = run("report", str(ws), "--format", "json", root=mini, capsys=capsys)
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert {name: data[name] for name in REVIEW} == REVIEW and data["date"]
    code, out, _ = run("report", str(ws), root=mini, capsys=capsys)
    assert out.splitlines()[1] == f"Server: Acme files, version 1.4.2 (abc123); reviewer: Ada Lovelace; worksheet dated {data['date']}"


def test_each_format_writes_the_review_record_where_a_reader_looks(mini: Path, tmp_path: Path, capsys) -> None:
    document = json.loads(export(mini, tmp_path / "ws.json", capsys, *REVIEW_ARGS).read_text())
    jsonschema.validate(document, load_schema("worksheet"))
    assert {name: document[name] for name in REVIEW} == REVIEW
    assert list(document)[:8] == ["format", "format_version", "doctrine_version", "commit", "date", *REVIEW]
    with export(mini, tmp_path / "ws.csv", capsys, *REVIEW_ARGS).open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert {(r["server_name"], r["server_version"], r["reviewer"]) for r in rows} == {tuple(REVIEW.values())}
    md = export(mini, tmp_path / "ws.md", capsys, *REVIEW_ARGS).read_text()
    assert "- Server: Acme files\n- Server version: 1.4.2 (abc123)\n- Reviewer: Ada Lovelace\n" in md
    wb = load_workbook(export(mini, tmp_path / "ws.xlsx", capsys, *REVIEW_ARGS))
    stamp = {row[0]: row[1] for row in wb["Stamp"].iter_rows(min_row=2, values_only=True)}
    assert {name: stamp[name] for name in REVIEW} == REVIEW
    assert "server Acme files, version 1.4.2 (abc123); reviewer Ada Lovelace" in wb["Summary"]["A2"].value


def test_without_a_review_record_the_fields_are_empty_and_the_report_says_so(mini: Path, tmp_path: Path, capsys) -> None:
    md = export(mini, tmp_path / "ws.md", capsys).read_text()
    assert "- Server:\n- Server version:\n- Reviewer:\n" in md, "empty fields, no trailing spaces"
    code, out, _ = run("report", str(tmp_path / "ws.md"), root=mini, capsys=capsys)
    assert code == 0 and out.splitlines()[1].startswith("Server: not named in the worksheet; reviewer: not named; worksheet dated ")


@pytest.mark.parametrize("fmt", ["json", "csv", "md"])
def test_a_worksheet_from_before_the_review_record_still_reports(fmt: str, mini: Path, tmp_path: Path, capsys) -> None:
    ws = export(mini, tmp_path / f"ws.{fmt}", capsys, *REVIEW_ARGS)
    text = ws.read_text()
    if fmt == "json":
        document = json.loads(text)
        for name in REVIEW:
            del document[name]
        jsonschema.validate(document, load_schema("worksheet"))
        text = json.dumps(document)
    elif fmt == "csv":
        lines = [line.rsplit(",", len(REVIEW_FIELDS))[0] for line in text.splitlines()]  # drop the review columns
        assert lines[0].endswith(",filters")
        text = "\n".join(lines) + "\n"
    else:
        text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(("- Server", "- Reviewer", "- Transport")))
    ws.write_text(text)
    fill(ws, {"SEC-001": ("Fail", "served ../etc")})
    code, out, err = run("report", str(ws), "--format", "json", root=mini, capsys=capsys)
    assert (code, err) == (1, "")
    data = json.loads(out)
    assert [f["id"] for f in data["findings"]["high"]] == ["SEC-001"]
    assert {name: data[name] for name in REVIEW} == {name: "" for name in REVIEW}


def test_the_review_options_are_for_worksheets_only(mini: Path, tmp_path: Path, capsys) -> None:
    code, _, err = run("export", "rules", "-o", str(tmp_path / "rules.json"), "--reviewer", "Ada", root=mini, capsys=capsys)
    assert code == 2 and "--reviewer: only a worksheet records what was reviewed" in err
    assert not (tmp_path / "rules.json").exists()


def test_a_review_field_is_one_bounded_line(mini: Path, tmp_path: Path, capsys) -> None:
    document = json.loads(export(mini, tmp_path / "ws.json", capsys, "--server-name", "two\nlines\tand  spaces", "--reviewer", "x" * 500).read_text())
    assert document["server_name"] == "two lines and spaces" and document["reviewer"] == "x" * 200


# ---- a stack filter keeps the general rules ------------------------------------------------------


@pytest.fixture
def two_stacks(tmp_path: Path) -> Path:
    rules = {**DEFAULT_RULES, "TST-002": {"title": "Pin the Node engine", "severity": "low", "gate": "testing", "scope": "stack", "stack": "Node"}}
    return write_handbook(tmp_path / "stacks", rules=rules)


def test_a_stack_filter_keeps_universal_and_opinionated_rules_and_leaves_out_other_stacks(two_stacks: Path, tmp_path: Path, capsys) -> None:
    document = json.loads(export(two_stacks, tmp_path / "ws.json", capsys, "--stack", "Python").read_text())
    assert [i["id"] for i in document["items"]] == ["TRN-001", "TRN-002", "SEC-001", "SEC-002", "TST-001"]
    assert document["filters"]["stack"] == ["Python"]
    document = json.loads(export(two_stacks, tmp_path / "ws.json", capsys, "--stack", "Python", "--stack", "Node").read_text())
    assert len(document["items"]) == 6


def test_the_skill_bundles_stack_filter_means_the_same(two_stacks: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "mcp-server-authoring"
    code, stdout, err = run("export", "skill", "-o", str(out), "--stack", "Node", root=two_stacks, capsys=capsys)
    assert code == 0, err
    assert "5 rules" in stdout
    text = "\n".join(p.read_text() for p in out.rglob("*.md"))
    assert "TST-002" in text and "SEC-001" in text and "SEC-002" not in text
