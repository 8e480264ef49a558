"""``audit --format sarif``: SARIF 2.1.0 that the official schema accepts, one result per failed rule.

The schema is the OASIS TC's own (tests/audit/schemas/README.md says where it was copied from). A server that
prints a banner on stdout fails TRN-001 (high) and has no frame cap (TRN-002, medium): two results, levels from
severity; the rule SEC-001 is not checked without a root and is a notification, never a result.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from audit_helpers import REFERENCE, hostile, run_cli

from mcp_handbook import load_corpus
from mcp_handbook.audit.sarif import LEVELS

pytestmark = pytest.mark.slow  # every test audits a server (README: the quick command leaves audits out)

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
RULES = ("TRN-001", "TRN-002", "TOOL-005", "SEC-001")
ONLY = [arg for rule in RULES for arg in ("--rule", rule)]


def _valid(log: dict) -> dict:
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    return log["runs"][0]


@pytest.fixture(scope="module")
def banner_audit(project_root: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, str]:
    repo = tmp_path_factory.mktemp("repo")
    (repo / "server").mkdir()
    (repo / "server" / "main.py").write_text("# the server's entry file\n", encoding="utf-8")
    run = run_cli(project_root, "audit", "-o", "audit.sarif", "-o", "audit.json", "--location", "./server/main.py",
                  *ONLY, "--", *hostile("banner"), cwd=repo, limit=240)
    assert run.code == 1, run.text  # TRN-001 is a HIGH spec rule
    assert "audit.sarif: wrote the findings as SARIF (2 result(s) for code scanning)" in run.stdout
    sheet = json.loads((repo / "audit.json").read_text(encoding="utf-8"))
    return json.loads((repo / "audit.sarif").read_text(encoding="utf-8")), sheet, run.stdout


def test_the_sarif_of_a_failing_server_validates_and_has_one_result_per_failure(banner_audit, project_root) -> None:
    log, sheet, _ = banner_audit
    run = _valid(log)
    corpus = load_corpus(project_root)
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r for r in (x.id for x in corpus.rules) if r in RULES]  # corpus order
    failed = sorted(item["id"] for item in sheet["items"] if item["status"] == "Fail")
    assert sorted(r["ruleId"] for r in run["results"]) == failed == ["TRN-001", "TRN-002"]
    for result in run["results"]:
        rule = corpus.rule(result["ruleId"])
        assert rules[result["ruleIndex"]]["id"] == rule.id
        assert result["level"] == LEVELS[rule.severity] and result["kind"] == "fail"
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "server/main.py", "uriBaseId": "%SRCROOT%"}
        assert result["partialFingerprints"] == {"mcpHandbookRule/v1": f"{rule.id}:server/main.py"}
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"TRN-001": "error", "TRN-002": "warning"}


def test_each_rule_carries_its_claim_as_help_and_its_versioned_page(banner_audit, project_root) -> None:
    log, _, _ = banner_audit
    corpus = load_corpus(project_root)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "mcp-handbook" and driver["informationUri"] == f"{corpus.site}{corpus.version}/"
    for descriptor in driver["rules"]:
        rule = corpus.rule(descriptor["id"])
        assert descriptor["helpUri"] == corpus.page_url(rule)
        assert f"/{corpus.version}/" in descriptor["helpUri"]
        assert descriptor["help"]["text"].startswith(rule.title) and descriptor["shortDescription"]["text"] == rule.title
        assert descriptor["defaultConfiguration"]["level"] == LEVELS[rule.severity]
    security = {d["id"]: d["properties"] for d in driver["rules"] if corpus.rule(d["id"]).basis == "security"}
    assert security and all("security-severity" in p for p in security.values())


def test_a_rule_not_checked_is_a_notification_not_a_result(banner_audit) -> None:
    log, sheet, _ = banner_audit
    run = log["runs"][0]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is True and invocation["exitCode"] == 1
    unchecked = {n["descriptor"]["id"]: n for n in invocation["toolExecutionNotifications"]}
    assert set(unchecked) == {i["id"] for i in sheet["items"] if i["evidence"].startswith("not checked")} == {"SEC-001"}
    assert unchecked["SEC-001"]["level"] == "warning" and "root unknown" in unchecked["SEC-001"]["message"]["text"]
    assert "SEC-001" not in {r["ruleId"] for r in run["results"]}


def test_without_a_location_results_point_at_the_repository_root(project_root, tmp_path) -> None:
    run = run_cli(project_root, "audit", "-o", "a.sarif", "--rule", "TRN-001", "--", *hostile("banner"), cwd=tmp_path, limit=120)
    assert run.code == 1, run.text
    result, = _valid(json.loads((tmp_path / "a.sarif").read_text(encoding="utf-8")))["results"]
    assert result["locations"][0]["physicalLocation"] == {"artifactLocation": {"uri": ".", "uriBaseId": "%SRCROOT%"}}


def test_the_reference_server_gives_valid_sarif_with_no_result(project_root, tmp_path) -> None:
    run = run_cli(project_root, "audit", "--format", "sarif", "-o", "ref.out", "--", *REFERENCE, cwd=tmp_path, limit=400)
    assert run.code == 0, run.text
    run_log = _valid(json.loads((tmp_path / "ref.out").read_text(encoding="utf-8")))
    assert run_log["results"] == [] and len(run_log["tool"]["driver"]["rules"]) > 40


def test_a_server_that_never_answers_is_an_unsuccessful_invocation(project_root, tmp_path) -> None:
    run = run_cli(project_root, "audit", "-o", "a.sarif", "--rule", "TRN-001", "--wait", "1", "--", *hostile("crash"),
                  cwd=tmp_path, limit=120)
    assert run.code == 1, run.text
    invocation = _valid(json.loads((tmp_path / "a.sarif").read_text(encoding="utf-8")))["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["level"] == "error"


@pytest.mark.parametrize(("location", "says"), [
    ("/etc/passwd", "relative to the repository root"), ("../x.py", "no '..'"), ("a//b.py", "forward slashes"),
    ("missing.toml", "no such file"), ("https://example.org/x", "relative to the repository root"),
])
def test_a_bad_location_is_refused_before_the_audit(location: str, says: str, project_root, tmp_path) -> None:
    run = run_cli(project_root, "audit", "-o", "a.sarif", "--location", location, "--", *hostile("banner"), cwd=tmp_path)
    assert run.code == 2 and says in run.stderr, run.text
    assert not (tmp_path / "a.sarif").exists()


def test_format_with_several_outputs_is_refused(project_root, tmp_path) -> None:
    run = run_cli(project_root, "audit", "--format", "md", "-o", "a.md", "-o", "b.md", "--", *hostile("banner"), cwd=tmp_path)
    assert run.code == 2 and "each takes its format from its suffix" in run.stderr, run.text
