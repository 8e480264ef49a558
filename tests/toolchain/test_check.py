"""`mcp-handbook check` reports every problem with path:line, and is clean on the real content."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp_handbook import load_corpus

FIXTURE = Path(__file__).parent / "fixtures" / "broken"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_handbook.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def codes_at(corpus, path_suffix: str) -> set[tuple[str, int]]:
    return {(d.code, d.location.line) for d in corpus.diagnostics if d.location.path.endswith(path_suffix)}


def test_every_problem_in_a_broken_rule_is_reported_with_its_line() -> None:
    found = codes_at(load_corpus(FIXTURE), "bad-fields.md")
    assert ("HB012", 4) in found  # scope: everywhere
    assert ("HB010", 10) in found  # unknown field colour
    assert ("HB022", 1) in found  # unknown gate
    assert ("HB031", 1) in found  # unknown probe
    corpus = load_corpus(FIXTURE)
    missing_blocks = [d.message for d in corpus.diagnostics if d.code == "HB030" and d.location.path.endswith("bad-fields.md")]
    assert len(missing_blocks) == 2 and "WRONG" in missing_blocks[0] and "CORRECT" in missing_blocks[1]
    assert any(code == "HB040" for code, _ in found)  # missing "How it is verified"


def test_malformed_yaml_names_its_line() -> None:
    found = codes_at(load_corpus(FIXTURE), "bad-yaml.md")
    assert [code for code, _ in found] == ["HB003"]
    (line,) = [ln for code, ln in found if code == "HB003"]
    assert 3 <= line <= 5


def test_duplicate_and_retired_ids_and_bad_snippets_are_reported() -> None:
    corpus = load_corpus(FIXTURE)
    assert ("HB020", 1) in codes_at(corpus, "dup-id.md")
    retired = codes_at(corpus, "retired.md")
    assert ("HB021", 1) in retired
    assert any(code == "HB013" for code, _ in retired)  # scope stack without a label
    assert ("HB033", 24) in retired  # the syntax error's own line in the markdown


def test_check_command_prints_path_line_code_and_exits_1() -> None:
    result = run_cli("check", cwd=FIXTURE)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines, result.stderr
    for line in lines:
        path, line_no, rest = line.split(":", 2)
        assert path.startswith(("content/rules/misc/", "snippets/")) and line_no.isdigit() and rest.startswith(" HB"), line
    assert "content/rules/misc/bad-fields.md:4: HB012 field 'scope' must be one of universal, opinionated, stack" in result.stdout


def test_check_is_clean_on_the_real_content(project_root: Path) -> None:
    result = run_cli("check", cwd=project_root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_a_non_utf8_rule_file_is_a_diagnostic_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    rules = tmp_path / "content" / "rules"
    rules.mkdir(parents=True)
    (tmp_path / "content" / "handbook.yml").write_text('version: "1.0.0"\ngates: [{key: g, title: G}]\n')
    (rules / "latin1.md").write_bytes(b"---\nid: ABC-001\ntitle: caf\xe9\n---\n")
    corpus = load_corpus(tmp_path)
    assert [(d.code, d.location.line) for d in corpus.diagnostics] == [("HB001", 3)]
