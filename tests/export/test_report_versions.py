"""A worksheet from an older doctrine: the report says so and lists what was added, changed and retired since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from export_helpers import DEFAULT_RULES, commit_all, fill, git, run, write_handbook

RETIRED = '\n  - {id: TST-001, retired_in: "0.2.0", replaced_by: TST-002}\n'


def doctrine_0_2_0(root: Path) -> str:
    """Bump to 0.2.0: add AUX-001 (security) and TST-002 (testing), make TRN-002 high, retire TST-001."""
    rules = {k: dict(v) for k, v in DEFAULT_RULES.items() if k != "TST-001"}
    rules["TRN-002"]["severity"] = "high"
    rules["SEC-003"] = {"title": "Refuse symlinks out of the workspace", "severity": "high", "gate": "security"}
    rules["TST-002"] = {"title": "Run the conformance suite", "severity": "medium", "gate": "testing"}
    write_handbook(root, version="0.2.0", rules=rules, retired=RETIRED)
    return commit_all(root, "doctrine 0.2.0")


def test_a_worksheet_from_an_older_commit_lists_rules_added_changed_and_retired(repo: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "old.csv"
    run("export", "worksheet", "-o", str(ws), root=repo, capsys=capsys)
    old_commit = git(repo, "rev-parse", "HEAD")
    doctrine_0_2_0(repo)
    fill(ws, {"TRN-002": ("Fail", "no cap"), "TST-001": ("Pass", "")})
    code, out, err = run("report", str(ws), "--format", "json", root=repo, capsys=capsys)
    assert err == ""
    since = json.loads(out)["since"]
    assert since["from_version"] == "0.1.0" and since["to_version"] == "0.2.0" and since["from_commit"] == old_commit
    assert [a["id"] for a in since["added"]] == ["SEC-003", "TST-002"]
    assert [(c["id"], c["fields"]) for c in since["changed"]] == [("TRN-002", [{"field": "severity", "old": "medium", "new": "high"}])]
    assert since["retired"] == [{"id": "TST-001", "fate": "retired in 0.2.0, replaced by TST-002"}]
    # the worksheet is judged by the doctrine it was filled against: TRN-002 was medium then
    assert code == 0

    code, text, _ = run("report", str(ws), root=repo, capsys=capsys)
    assert f"The worksheet was filled against doctrine 0.1.0, commit {old_commit[:12]}; the doctrine is now 0.2.0." in text
    assert "  Added since (2), not on this worksheet: audit these too\n    SEC-003  high    Refuse symlinks out of the workspace" in text
    assert "  Changed since (1): look at these again\n    TRN-002  severity medium -> high" in text
    assert "  Retired since (1): drop these from the next audit\n    TST-001  retired in 0.2.0, replaced by TST-002" in text


def test_added_rules_are_narrowed_to_the_worksheets_filters(repo: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "old.json"
    run("export", "worksheet", "-o", str(ws), "--gate", "security", root=repo, capsys=capsys)
    doctrine_0_2_0(repo)
    code, out, _ = run("report", str(ws), "--format", "json", root=repo, capsys=capsys)
    since = json.loads(out)["since"]
    assert code == 0
    assert [a["id"] for a in since["added"]] == ["SEC-003"]
    assert since["changed"] == [] and since["retired"] == []


def test_an_unknown_commit_falls_back_to_the_version(repo: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "old.md"
    run("export", "worksheet", "-o", str(ws), root=repo, capsys=capsys)
    commit = git(repo, "rev-parse", "HEAD")
    ws.write_text(ws.read_text().replace(commit, "f" * 40))  # exported from a fork this clone never saw
    doctrine_0_2_0(repo)
    code, out, _ = run("report", str(ws), "--format", "json", root=repo, capsys=capsys)
    since = json.loads(out)["since"]
    assert code == 0 and since["from_version"] == "0.1.0"
    assert since["from_commit"] != "f" * 40 and [a["id"] for a in since["added"]] == ["SEC-003", "TST-002"]


def test_the_version_fallback_finds_the_version_even_after_the_bump_commit(repo: Path, tmp_path: Path, capsys) -> None:
    """`git log -G` also matches the commit that bumped 0.1.0 away; the report must still load 0.1.0."""
    ws = tmp_path / "old.csv"
    run("export", "worksheet", "-o", str(ws), root=repo, capsys=capsys)
    ws.write_text(ws.read_text().replace(git(repo, "rev-parse", "HEAD"), "unknown"))
    doctrine_0_2_0(repo)
    (repo / "README.md").write_text("a later commit that does not touch the doctrine\n")
    commit_all(repo, "docs")
    code, out, err = run("report", str(ws), "--format", "json", root=repo, capsys=capsys)
    assert code == 0, err
    assert json.loads(out)["since"]["from_version"] == "0.1.0"


def test_a_retired_rule_on_an_old_worksheet_is_not_an_unknown_id(repo: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "old.xlsx"
    run("export", "worksheet", "-o", str(ws), root=repo, capsys=capsys)
    doctrine_0_2_0(repo)
    fill(ws, {"TST-001": ("Fail", "no pipe test")})
    code, out, _ = run("report", str(ws), root=repo, capsys=capsys)
    assert code == 0 and "FAIL TST-001" in out and "TST-001  retired in 0.2.0" in out


def test_a_stamp_whose_version_contradicts_its_commit_is_refused(repo: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    run("export", "worksheet", "-o", "ws.csv", root=repo, capsys=capsys)
    doctrine_0_2_0(repo)
    ws = tmp_path / "ws.csv"
    ws.write_text(ws.read_text().replace(",0.1.0,", ",0.2.0,"))
    code, out, err = run("report", "ws.csv", root=repo, capsys=capsys)
    assert code == 2 and out == ""
    assert err.splitlines()[0].startswith("ws.csv: row 2, column P (doctrine_version): the stamp is inconsistent: commit ")


def test_the_same_commit_reports_no_changes(repo: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "ws.csv"
    run("export", "worksheet", "-o", str(ws), root=repo, capsys=capsys)
    (repo / "README.md").write_text("not doctrine\n")
    commit_all(repo, "docs only")
    code, out, _ = run("report", str(ws), "--format", "json", root=repo, capsys=capsys)
    assert code == 0 and json.loads(out)["since"] is None


def test_a_hostile_commit_stamp_is_never_passed_to_git(repo: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "ws.json"
    run("export", "worksheet", "-o", str(ws), root=repo, capsys=capsys)
    document = json.loads(ws.read_text())
    document["commit"], document["doctrine_version"] = f"--output={tmp_path / 'pwned'}", "0.0.9"
    ws.write_text(json.dumps(document))
    code, _, err = run("report", str(ws), root=repo, capsys=capsys)
    assert code == 2 and "is unknown here" in err
    assert not (tmp_path / "pwned").exists()


def test_an_export_from_uncommitted_content_is_stamped_dirty_and_judged_by_the_content(repo: Path, tmp_path: Path, capsys) -> None:
    rules = {**DEFAULT_RULES, "SEC-003": {"title": "Refuse symlinks out of the workspace", "severity": "high", "gate": "security"}}
    write_handbook(repo, rules=rules)  # a draft rule, not committed
    ws = tmp_path / "ws.csv"
    run("export", "worksheet", "-o", str(ws), root=repo, capsys=capsys)
    assert f",{git(repo, 'rev-parse', 'HEAD')}-dirty," in ws.read_text()
    (repo / "README.md").write_text("someone else commits meanwhile\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "-q", "-m", "docs")  # HEAD moves; the draft rule stays uncommitted
    fill(ws, {"SEC-003": ("Fail", "follows symlinks")})
    code, out, err = run("report", str(ws), root=repo, capsys=capsys)
    assert (code, err) == (1, "") and "FAIL SEC-003" in out


def test_a_content_change_without_a_version_bump_is_still_listed(repo: Path, tmp_path: Path, capsys) -> None:
    ws = tmp_path / "ws.json"
    run("export", "worksheet", "-o", str(ws), root=repo, capsys=capsys)
    rules = {k: dict(v) for k, v in DEFAULT_RULES.items()}
    rules["SEC-002"]["severity"] = "high"
    write_handbook(repo, rules=rules)
    commit_all(repo, "SEC-002 is high")
    code, out, _ = run("report", str(ws), "--format", "json", root=repo, capsys=capsys)
    since = json.loads(out)["since"]
    assert code == 0 and (since["from_version"], since["to_version"]) == ("0.1.0", "0.1.0")
    assert [(c["id"], c["fields"]) for c in since["changed"]] == [("SEC-002", [{"field": "severity", "old": "low", "new": "high"}])]
