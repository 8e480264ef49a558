"""The threat mapping travels in every export: a `threats` column in each worksheet format (last, so a worksheet
made before it still reads and reports), the pinned OWASP MCP Top 10 in rules.json, the report, and the skill
bundle's `references/threats.md`."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import jsonschema
import pytest
from export_helpers import FORMATS, fill, run
from openpyxl import load_workbook

from mcp_handbook.export import COLUMNS, load_schema
from mcp_handbook.threats import CATEGORIES, OWASP_MCP_TOP10

SEC_THREATS = "CWE-20 MCP05 MCP01"
"""What the mini handbook's SEC-001 names once the fixture below has given it two categories."""


@pytest.fixture
def mapped(mini: Path) -> Path:
    """The mini handbook with SEC-001 naming two OWASP MCP Top 10 categories beside its CWE."""
    path = mini / "content" / "rules" / "security" / "sec-001.md"
    path.write_text(path.read_text().replace("threats: [CWE-20]", "threats: [CWE-20, MCP05, MCP01]"))
    return mini


def _export(root: Path, fmt: str, tmp_path: Path, capsys) -> Path:
    out = tmp_path / f"ws.{fmt}"
    code, _, err = run("export", "worksheet", "-o", str(out), root=root, capsys=capsys)
    assert code == 0, err
    return out


def _md_table(text: str) -> list[list[str]]:
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip().strip("|").split("|")] for row in rows if not row.startswith("|---")]


def _columns(path: Path) -> list[str]:
    """The worksheet's column names, whatever its format."""
    fmt = path.suffix.lstrip(".")
    if fmt == "csv":
        return next(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    if fmt == "json":
        return sorted({key for item in json.loads(path.read_text(encoding="utf-8"))["items"] for key in item})
    if fmt == "md":
        return _md_table(path.read_text(encoding="utf-8"))[0]
    return [c.value for c in load_workbook(path)["Worksheet"][1]]


def _threats_by_id(path: Path) -> tuple[list[str], dict[str, str]]:
    """The file's column names and each row's threats cell, read the way a reviewer's tool would."""
    fmt = path.suffix.lstrip(".")
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
        return list(rows[0]), {r["id"]: r["threats"] for r in rows}
    if fmt == "json":
        document = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(document, load_schema("worksheet"))
        return list(document["items"][0]), {i["id"]: i["threats"] for i in document["items"]}
    if fmt == "md":
        header, *rows = _md_table(path.read_text(encoding="utf-8"))
        return header, {dict(zip(header, r))["id"]: dict(zip(header, r))["threats"] for r in rows}
    sheet = load_workbook(path)["Worksheet"]
    header, *rows = [[c or "" for c in row] for row in sheet.iter_rows(values_only=True)]
    return header, {dict(zip(header, r))["id"]: dict(zip(header, r))["threats"] for r in rows}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_worksheet_format_carries_each_rules_threats_in_a_late_column(fmt: str, mapped: Path, tmp_path: Path, capsys) -> None:
    columns, threats = _threats_by_id(_export(mapped, fmt, tmp_path, capsys))
    # added at the end in 1.2.0, followed only by 1.3.0's clauses: older columns keep their place
    assert columns[: len(COLUMNS)][-3:] == ["threats", "clauses", "page"] and COLUMNS[-3:] == ("threats", "clauses", "page")
    assert threats == {"TRN-001": "CWE-20", "TRN-002": "CWE-20", "SEC-001": SEC_THREATS, "SEC-002": "", "TST-001": ""}


def _drop_threats(path: Path) -> None:
    """Make the worksheet look exported before the column existed."""
    fmt = path.suffix.lstrip(".")
    if fmt == "json":
        document = json.loads(path.read_text(encoding="utf-8"))
        for item in document["items"]:
            del item["threats"]
        path.write_text(json.dumps(document), encoding="utf-8")
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=[c for c in rows[0] if c != "threats"], extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        path.write_text(out.getvalue(), encoding="utf-8")
    elif fmt == "md":
        lines = path.read_text(encoding="utf-8").split("\n")
        column = next(line for line in lines if line.startswith("| id ")).strip().strip("|").split("|").index(" threats ")
        for i, line in enumerate(lines):
            if line.startswith("|"):
                cells = line.strip()[1:-1].split("|")
                lines[i] = "|" + "|".join(cells[:column] + cells[column + 1 :]) + "|"
        path.write_text("\n".join(lines), encoding="utf-8")
    else:
        wb = load_workbook(path)
        sheet = wb["Worksheet"]
        sheet.delete_cols([c.value for c in sheet[1]].index("threats") + 1)
        wb.save(path)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_worksheet_from_before_the_threats_column_still_reports_the_threats(fmt: str, mapped: Path, tmp_path: Path, capsys) -> None:
    ws = _export(mapped, fmt, tmp_path, capsys)
    assert "threats" in _threats_by_id(ws)[0]
    _drop_threats(ws)
    assert "threats" not in _columns(ws)
    fill(ws, {"SEC-001": ("Fail", "served ../etc/passwd"), "TRN-001": ("Pass", "")})
    code, out, err = run("report", str(ws), root=mapped, capsys=capsys)
    assert (code, err) == (1, "")
    assert (
        "  FAIL SEC-001  Contain paths in the workspace  [security finding: universal, security]\n"
        f"       threats: CWE-20, MCP05 Command injection and execution, MCP01 Token mismanagement and secret exposure ({OWASP_MCP_TOP10})\n"
        "       evidence: served ../etc/passwd"
    ) in out
    code, out, _ = run("report", str(ws), "--format", "json", root=mapped, capsys=capsys)
    data = json.loads(out)
    assert data["threat_list"] == OWASP_MCP_TOP10
    assert [(f["id"], f["threats"]) for f in data["findings"]["high"]] == [("SEC-001", ["CWE-20", "MCP05", "MCP01"])]


def test_rules_json_names_the_list_version_and_its_categories(mapped: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "rules.json"
    assert run("export", "rules", "-o", str(out), root=mapped, capsys=capsys)[0] == 0
    document = json.loads(out.read_text())
    jsonschema.validate(document, load_schema("rules"))
    listed = document["threat_list"]
    assert (listed["name"], listed["label"]) == ("OWASP MCP Top 10", OWASP_MCP_TOP10) and listed["read_on"] in OWASP_MCP_TOP10
    assert [c["id"] for c in listed["categories"]] == [c.id for c in CATEGORIES]
    assert all(c["beyond_server"] for c in listed["categories"])
    assert next(r for r in document["rules"] if r["id"] == "SEC-001")["threats"] == ["CWE-20", "MCP05", "MCP01"]


def test_the_skill_bundle_names_each_rules_threats_and_maps_the_categories(mapped: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "mcp-server-authoring"
    assert run("export", "skill", "-o", str(out), root=mapped, capsys=capsys)[0] == 0
    security = (out / "references" / "rules" / "SEC-001.md").read_text()
    assert "threats CWE-20, MCP05 Command injection and execution, MCP01 Token mismanagement and secret exposure" in security
    threats = (out / "references" / "threats.md").read_text()
    assert OWASP_MCP_TOP10 in threats
    assert "| MCP05 | Command injection and execution | SEC-001 |" in threats
    assert "| MCP03 | Tool poisoning | none |" in threats
    for c in CATEGORIES:
        section = threats.split(f"\n## {c.id}: {c.name}\n", 1)[1].split("\n## ", 1)[0]
        assert f"What a server author cannot address: {c.beyond_server}" in section
        assert ("- [SEC-001](rules/SEC-001.md) " in section) == (c.id in ("MCP05", "MCP01")), c.id
    assert "](references/threats.md)" in (out / "SKILL.md").read_text()
