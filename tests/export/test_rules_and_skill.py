"""rules.json follows its schema and points back at the markdown; the skill bundle is a valid Agent Skill."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import jsonschema
import pytest
import yaml
from export_helpers import run

from mcp_handbook import load_corpus
from mcp_handbook.export import DOWNLOADS, load_schema, write_downloads
from mcp_handbook.export.worksheet import stamp_for
from mcp_handbook.export.skill import SKILL_NAME, bundle_problems, skill_files
from mcp_handbook.export.skill.render import reference_name, rule_file

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def test_rules_json_matches_its_schema_and_locates_every_snippet(mini: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "rules.json"
    assert run("export", "rules", "-o", str(out), root=mini, capsys=capsys)[0] == 0
    document = json.loads(out.read_text())
    jsonschema.validate(document, load_schema("rules"))
    corpus = load_corpus(mini)
    assert [r["id"] for r in document["rules"]] == [r.id for r in corpus.rules]
    for entry, rule in zip(document["rules"], corpus.rules):
        assert entry["summary"] == rule.summary and entry["location"] == f"{rule.path}:1"
        lines = (mini / entry["path"]).read_text().split("\n")
        for snippet in entry["snippets"]:
            assert snippet["location"] == f"{snippet['path']}:{snippet['line']}-{snippet['end_line']}"
            assert lines[snippet["line"] - 1].startswith(f"```python {snippet['kind']}")
            assert "\n".join(lines[snippet["code_line"] - 1 : snippet["end_line"] - 1]) + "\n" == snippet["code"]


def test_rules_json_of_the_real_doctrine_matches_its_schema(project_root: Path) -> None:
    from mcp_handbook.export import to_rules_json

    corpus = load_corpus(project_root)
    document = json.loads(to_rules_json(corpus, corpus.rules, stamp_for(corpus)))
    jsonschema.validate(document, load_schema("rules"))
    assert len(document["rules"]) == len(corpus.rules) and document["doctrine_version"] == corpus.version


def _front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


def _check_bundle(files: dict[str, str], rules, name: str) -> None:
    """Valid, and each rule in exactly one file of its own, with its CORRECT code and without its WRONG code."""
    assert bundle_problems(files, name) == []
    front = _front_matter(files["SKILL.md"])
    assert set(front) == {"name", "description", "metadata"} and front["name"] == name
    assert len(name) <= 64 and NAME.match(name)
    assert 0 < len(front["description"]) <= 1024 and "Use when" in front["description"]
    body = files["SKILL.md"].split("---\n", 2)[2]
    headed = [path for path, text in files.items() if path.endswith(".md") and re.match(r"# [A-Z]+-\d+ · ", text)]
    assert sorted(headed) == sorted(rule_file(r.id) for r in rules), "one file per rule, and no other rule file"
    for rule in rules:
        section = files[rule_file(rule.id)]
        assert section.startswith(f"# {rule.id} · {rule.title}")
        expected_inline = 1 if rule.severity == "high" else 0
        assert body.count(f"- [{rule.id}]({rule_file(rule.id)}) ") == expected_inline, f"{rule.id} inline in SKILL.md"
        assert f"[{rule.id}](rules/{rule.id}.md)" in files[reference_name(rule.gate)], f"its gate index links {rule.id}"
        correct = [s.code.strip() for s in rule.snippets if s.kind == "correct"]
        for snippet in rule.snippets:
            code = snippet.code.strip()
            if snippet.kind == "correct":
                assert code in section, f"{snippet.name} is in its rule's file"
            else:  # left out, unless a CORRECT block of the same rule happens to contain the same text
                assert code not in section or any(code in c for c in correct), f"{snippet.name} must be left out"
    for path in files:
        if not path.startswith("references/rules/") and path != "SKILL.md":
            assert f"]({path})" in body, f"SKILL.md links {path}"


def _layout(rules) -> list[str]:
    gates = sorted({reference_name(r.gate) for r in rules})
    return sorted(["SKILL.md", *gates, "references/threats.md", *(rule_file(r.id) for r in rules),
                   "scripts/audit_server.sh", "scripts/check_tool.py"])


def test_the_skill_bundle_has_valid_front_matter_and_every_rule_exactly_once(mini: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "skills" / SKILL_NAME
    code, stdout, _ = run("export", "skill", "-o", str(out), root=mini, capsys=capsys)
    assert code == 0 and "9 reference file(s), 2 script(s)" in stdout
    files = {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()}
    rules = load_corpus(mini).rules
    assert sorted(files) == _layout(rules)
    _check_bundle(files, rules, SKILL_NAME)


def test_the_skill_bundle_of_the_real_doctrine_is_valid(project_root: Path) -> None:
    corpus = load_corpus(project_root)
    _check_bundle(skill_files(corpus, corpus.rules, stamp_for(corpus)), corpus.rules, SKILL_NAME)


def test_a_filtered_skill_holds_only_the_chosen_rules(mini: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "python-servers"
    assert run("export", "skill", "-o", str(out), "--gate", "security", root=mini, capsys=capsys)[0] == 0
    files = {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()}
    corpus = load_corpus(mini)
    chosen = [r for r in corpus.rules if r.gate == "security"]
    assert sorted(files) == _layout(chosen)
    _check_bundle(files, chosen, "python-servers")
    assert "TRN-001" not in "".join(files.values())
    assert "Limited to gate=security." in _front_matter(files["SKILL.md"])["description"]


def test_a_new_bundle_replaces_the_old_one_whole(mini: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / SKILL_NAME
    run("export", "skill", "-o", str(out), root=mini, capsys=capsys)
    run("export", "skill", "-o", str(out), "--gate", "testing", root=mini, capsys=capsys)
    testing = [r for r in load_corpus(mini).rules if r.gate == "testing"]
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == _layout(testing)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hb", SKILL_NAME], "no staging or old folder left behind"


def test_a_failing_skill_export_leaves_the_old_bundle(mini: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / SKILL_NAME
    run("export", "skill", "-o", str(out), root=mini, capsys=capsys)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    real_write = Path.write_bytes

    def fail_on_references(self: Path, data: bytes) -> int:
        if self.parent.name == "references":
            raise OSError(28, "No space left on device")
        return real_write(self, data)

    monkeypatch.setattr(Path, "write_bytes", fail_on_references)
    code, _, err = run("export", "skill", "-o", str(out), root=mini, capsys=capsys)
    monkeypatch.undo()
    assert code == 2 and "No space left on device" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hb", SKILL_NAME]


def test_skill_export_refuses_a_folder_it_did_not_write_and_a_bad_name(mini: Path, tmp_path: Path, capsys) -> None:
    home = tmp_path / "precious"
    home.mkdir()
    (home / "thesis.tex").write_text("years of work")
    code, _, err = run("export", "skill", "-o", str(home), root=mini, capsys=capsys)
    assert code == 2 and "is not a folder this command wrote" in err
    assert (home / "thesis.tex").read_text() == "years of work"
    code, _, err = run("export", "skill", "-o", str(tmp_path / "My_Skill"), root=mini, capsys=capsys)
    assert code == 2 and "must be lowercase letters, digits and single hyphens" in err
    assert not (tmp_path / "My_Skill").exists()


def test_downloads_are_exactly_the_six_files_and_reproducible(mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    corpus = load_corpus(mini)
    first = write_downloads(corpus, tmp_path / "a")
    second = write_downloads(corpus, tmp_path / "b")
    names = ["worksheet.md", "worksheet.csv", "worksheet.json", "worksheet.xlsx", "rules.json", "mcp-server-authoring-skill.zip"]
    assert [p.name for p in first] == names == list(DOWNLOADS)
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(names)
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    with zipfile.ZipFile(tmp_path / "a" / "mcp-server-authoring-skill.zip") as archive:
        assert {i.date_time for i in archive.infolist()} == {(2026, 1, 1, 0, 0, 0)}
        names_in_zip = archive.namelist()
        assert names_in_zip == sorted(names_in_zip) and all(n.startswith(f"{SKILL_NAME}/") for n in names_in_zip)
        skill = {n.split("/", 1)[1]: archive.read(n).decode() for n in names_in_zip}
    _check_bundle(skill, corpus.rules, SKILL_NAME)
