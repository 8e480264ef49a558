"""The reference server audits clean, through the command a reviewer runs, and ``report`` agrees."""

from __future__ import annotations

import pytest

import json
from pathlib import Path

from audit_helpers import REFERENCE, run_cli

from mcp_handbook import load_corpus
from mcp_handbook.probes import PROBES

pytestmark = pytest.mark.slow  # a whole audit of the reference server


def test_the_reference_server_audits_clean_and_report_agrees(project_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    run = run_cli(project_root, "audit", "-o", str(out), "--", *REFERENCE, limit=120)
    assert run.code == 0, run.text
    assert "Traceback" not in run.text
    assert f"{out}: wrote the worksheet" in run.stdout and "no HIGH rule of the baseline profile failed: exit 0" in run.stdout

    corpus = load_corpus(project_root)
    automated = {r.id: r for r in corpus.rules if r.check == "automated" and r.probe in PROBES}
    items = {item["id"]: item for item in json.loads(out.read_text())["items"]}
    assert [i for i in items.values() if i["status"] == "Fail"] == []
    for rule_id, rule in automated.items():
        item = items[rule_id]
        if "http" in rule.conditions:  # audited over stdio here; test_audit_http.py audits it over HTTP
            assert item["status"] == "N/A" and item["evidence"].startswith("does not apply"), (rule_id, item["evidence"])
        elif PROBES[rule.probe].calls_tools:  # N/A when the only tool it needs may write (append_note): not called
            assert item["status"] in ("Pass", "N/A"), (rule_id, item["evidence"])
        else:
            assert item["status"] == "Pass", (rule_id, item["evidence"])
    assert all(items[r.id]["status"] == "" for r in corpus.rules if r.check == "manual")

    report = run_cli(project_root, "report", str(out), limit=60)
    assert report.code == 0, report.text
