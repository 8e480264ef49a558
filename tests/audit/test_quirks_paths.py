"""Path probes against tools that open only one kind of file, as excel-mcp-server's do.

A tool that opens only workbooks refuses ``inside.txt`` for its type, before it looks where the path leads. The
path probes once planted only text files, read that refusal as "refuses everything" (a false HIGH FAIL), and
aimed their escapes at ``secret.txt``, which such a tool refuses for its type even when it contains nothing. They
now plant real files of the kinds a tool names, and call a tool they cannot make serve anything *not checked*.
"""

from __future__ import annotations

import secrets
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_handbook.probes import PROBES
from mcp_handbook.probes.security._file_kinds import KINDS, TEXT, kinds_taken, kinds_listed
from mcp_handbook.probes.support import Finding, Target
from mcp_handbook.proving.verify import minimal_env

QUIRKS = Path(__file__).resolve().parent / "quirks"
XLSX = next(kind for kind in KINDS if kind.suffix == ".xlsx")


@pytest.fixture
def audit_path_tool(tmp_path: Path) -> Iterator:
    """``audit_path_tool(probe, *args)``: the probe's finding against ``quirks/sec_xlsx_only.py ARGS``, its root known."""
    targets: list[Target] = []

    def run(probe: str, *args: str) -> Finding:
        workspace = tmp_path / f"run-{len(targets)}" / "ws"
        workspace.mkdir(parents=True)
        canary = f"hb-canary-{secrets.token_hex(8)}"
        target = Target(argv=[sys.executable, str(QUIRKS / "sec_xlsx_only.py"), *args], workspace=workspace,
                        env=minimal_env(home=workspace, HB_CANARY=canary), canary=canary, timeout=5.0, root=workspace)
        targets.append(target)
        try:
            return PROBES[probe].run(target)
        finally:
            target.stop_all()

    yield run
    for target in targets:
        target.stop_all()


def test_a_contained_tool_that_opens_only_workbooks_passes(audit_path_tool) -> None:
    finding = audit_path_tool("path_containment")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    shown = "\n".join(finding.evidence)
    assert "path='inside.xlsx') -> served" in shown and "sheets: hb-inside-ok" in shown
    assert "secret.xlsx" in shown  # the escapes aim at workbooks, so a refusal is about the place, not the type


def test_a_tool_that_opens_only_workbooks_and_escapes_fails(audit_path_tool) -> None:
    finding = audit_path_tool("path_containment", "--escape")
    assert (finding.status, finding.reason) == ("FAIL", "served_outside_root"), (finding.summary, finding.evidence)
    assert any("hb-outside-" in row and "SERVED" in row for row in finding.evidence)


def test_a_tool_that_opens_a_kind_the_probe_cannot_make_is_not_checked(audit_path_tool) -> None:
    finding = audit_path_tool("path_containment", "--suffix", ".dwg")
    assert finding.status == "N/A", (finding.reason, finding.summary, finding.evidence)
    assert finding.summary.startswith("not checked: describe_workbook served no file inside the root"), finding.summary


def test_a_tool_that_calls_every_path_outside_still_fails(audit_path_tool) -> None:
    """Planted workbooks refused in the words the escapes get: the inside is treated as outside."""
    finding = audit_path_tool("path_containment", "--refuse-all")
    assert (finding.status, finding.reason) == ("FAIL", "refuses_inside_paths"), (finding.summary, finding.evidence)
    assert "'inside.xlsx' (inside) as it refuses escapes" in "\n".join(finding.evidence)


def test_a_fifo_is_named_like_the_files_the_tool_opens(audit_path_tool) -> None:
    """The workbook tool opens whatever ``.xlsx`` names, FIFO or not: a FIFO named ``hb-fifo-…`` was refused for its
    name and the probe passed; named ``….xlsx`` it blocks the call, as it would for a planted one."""
    finding = audit_path_tool("regular_files_only")
    assert (finding.status, finding.reason) == ("FAIL", "blocked_on_fifo"), (finding.summary, finding.evidence)
    assert any(".xlsx\"}) -> NO ANSWER" in row for row in finding.evidence), finding.evidence


def test_the_kinds_a_tool_takes_come_from_its_own_words_then_the_server_s() -> None:
    plain = {"name": "read", "inputSchema": {"properties": {"path": {"type": "string"}}}}
    assert kinds_taken(plain, "path") == [TEXT]
    assert kinds_taken(plain, "path", "Work with Excel workbooks (.xlsx, .xlsm).")[0] is XLSX
    described = {**plain, "description": "Extract the text of a PDF."}
    assert [k.suffix for k in kinds_taken(described, "path")] == [".pdf", ".txt"]
    patterned = {"name": "load", "inputSchema": {"properties": {"file": {"type": "string", "pattern": r"\.csv$"}}}}
    assert kinds_taken(patterned, "file")[0].suffix == ".csv"
    assert [k.suffix for k in kinds_listed(["file:///a.md", "file:///b.md", "file:///c.json"])] == [".md", ".json", ".txt"]


def test_every_planted_kind_is_a_valid_file_showing_its_text(tmp_path: Path) -> None:
    for kind in KINDS:
        kind.write(tmp_path / f"f{kind.suffix}", "hb-shown")
    with zipfile.ZipFile(tmp_path / "f.xlsx") as book:
        assert book.testzip() is None and "hb-shown" in book.read("xl/worksheets/sheet1.xml").decode()
    assert (tmp_path / "f.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    pdf = (tmp_path / "f.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and b"(hb-shown) Tj" in pdf and pdf.rstrip().endswith(b"%%EOF")


# -- resources: the same, for a server that lists and reads only Markdown notes --------------------------------

def _notes(tmp_path: Path, *args: str) -> Finding:
    workspace = tmp_path / "run" / "ws"
    workspace.mkdir(parents=True)
    canary = f"hb-canary-{secrets.token_hex(8)}"
    target = Target(argv=[sys.executable, str(QUIRKS / "sec_md_resources.py"), *args], workspace=workspace,
                    env=minimal_env(home=workspace, HB_CANARY=canary), canary=canary, timeout=5.0, root=workspace)
    try:
        return PROBES["resource_uri_containment"].run(target)
    finally:
        target.stop_all()


def test_a_contained_server_of_markdown_notes_passes(tmp_path: Path) -> None:
    finding = _notes(tmp_path)
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    assert "file:///inside.md -> " in finding.evidence[0] and "secret.md" in "\n".join(finding.evidence)


def test_a_server_of_markdown_notes_that_escapes_fails(tmp_path: Path) -> None:
    finding = _notes(tmp_path, "--escape")
    assert (finding.status, finding.reason) == ("FAIL", "served_outside_root"), (finding.summary, finding.evidence)
    assert any("hb-outside-marker-7f3a" in row for row in finding.evidence)
