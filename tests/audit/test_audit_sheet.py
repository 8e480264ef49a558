"""The audit's worksheet names the server it audited, as the server named itself in ``initialize``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from audit_helpers import REFERENCE, run_cli

from mcp_handbook import load_corpus
from mcp_handbook.audit.plan import AuditOptions, AuditResult
from mcp_handbook.audit.preflight import ServerFacts
from mcp_handbook.audit.sheet import audit_stamp, write_audit_worksheet


def result_with(server_info: dict) -> AuditResult:
    facts = ServerFacts(answered=True, server_info=server_info)
    return AuditResult(command=("server",), facts=facts, findings=(), canary=(), seconds=0.0, options=AuditOptions())


def test_the_stamp_names_the_server_from_its_server_info(project_root: Path, tmp_path: Path) -> None:
    corpus = load_corpus(project_root)
    stamp = audit_stamp(corpus, result_with({"name": "acme-files", "version": "2.0.1", "title": "Acme"}))
    assert (stamp.server_name, stamp.server_version, stamp.reviewer) == ("acme-files", "2.0.1", "")
    out = tmp_path / "audit.md"
    write_audit_worksheet(corpus, result_with({"name": "acme-files", "version": "2.0.1"}), fmt="md", path=out)
    assert "- Server: acme-files\n- Server version: 2.0.1\n" in out.read_text()


def test_a_hostile_server_info_is_cleaned_bounded_and_never_trusted_as_text(project_root: Path) -> None:
    corpus = load_corpus(project_root)
    stamp = audit_stamp(corpus, result_with({"name": "evil\x1b[2J\nname" + "x" * 1000, "version": 3}))
    assert "\x1b" not in stamp.server_name and "\n" not in stamp.server_name
    assert stamp.server_name.startswith("evil\\x1b[2J name") and len(stamp.server_name) == 200
    assert stamp.server_version == "", "a version that is not text is not guessed at"
    assert audit_stamp(corpus, result_with({})).server_name == ""


def test_the_stamp_records_the_transport_and_the_eras_the_server_answered(project_root: Path, tmp_path: Path) -> None:
    corpus = load_corpus(project_root)
    facts = ServerFacts(answered=True, legacy=False, modern=True, era="2026-07-28", transport="http",
                        url="http://127.0.0.1:8000/mcp", eras=("2026-07-28 (server/discover)",))
    result = AuditResult(command=("server",), facts=facts, findings=(), canary=(), seconds=0.0, options=AuditOptions())
    assert audit_stamp(corpus, result).server_transport == (
        "Streamable HTTP at http://127.0.0.1:8000/mcp; answered: 2026-07-28 (server/discover); probes spoke 2026-07-28")
    out = tmp_path / "audit.json"
    write_audit_worksheet(corpus, result, fmt="json", path=out)
    assert json.loads(out.read_text())["server_transport"].startswith("Streamable HTTP at http://127.0.0.1:8000/mcp")
    silent = AuditResult(command=("server",), facts=ServerFacts(), findings=(), canary=(), seconds=0.0, options=AuditOptions())
    assert audit_stamp(corpus, silent).server_transport == "stdio; answered: no era answered"


@pytest.mark.slow  # starts the reference server
def test_an_audit_of_the_reference_server_stamps_its_name_and_version(project_root: Path, tmp_path: Path) -> None:
    from reference_server import SERVER_NAME, __version__

    out = tmp_path / "audit.json"
    run = run_cli(project_root, "audit", "-o", str(out), "--rule", "TRN-001", "--", *REFERENCE, limit=120)
    assert run.code == 0, run.text
    document = json.loads(out.read_text())
    assert (document["server_name"], document["server_version"]) == (SERVER_NAME, __version__)
    report = run_cli(project_root, "report", str(out), limit=60)
    assert f"Server: {SERVER_NAME}, version {__version__};" in report.stdout
