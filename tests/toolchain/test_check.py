"""`mcp-handbook check` reports every problem with path:line, and is clean on the real content."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "broken"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_handbook.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def run_in_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``mcp-handbook --root CWD ARGS`` in this process: the same command without starting Python again (the
    console script itself is run by the tests above and below that call ``run_cli``)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--root", str(cwd), *args])
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def codes_at(corpus, path_suffix: str) -> set[tuple[str, int]]:
    return {(d.code, d.location.line) for d in corpus.diagnostics if d.location.path.endswith(path_suffix)}


def test_every_problem_in_a_broken_rule_is_reported_with_its_line() -> None:
    found = codes_at(load_corpus(FIXTURE, proving=True), "bad-fields.md")
    assert ("HB012", 4) in found  # scope: everywhere
    assert ("HB010", 10) in found  # unknown field colour
    assert ("HB022", 6) in found  # unknown gate, at its field's line
    assert ("HB031", 8) in found  # unknown probe, at its field's line
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
    assert ("HB020", 2) in codes_at(corpus, "dup-id.md")  # at the id's line
    retired = codes_at(corpus, "retired.md")
    assert ("HB021", 2) in retired
    assert any(code == "HB013" for code, _ in retired)  # scope stack without a label
    assert ("HB033", 24) in retired  # the syntax error's own line in the markdown


def test_check_command_prints_path_line_code_and_exits_1() -> None:
    result = run_cli("check", cwd=FIXTURE)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines, result.stderr
    for line in lines:
        path, line_no, rest = line.split(":", 2)
        assert path.startswith(("content/rules/misc/", "content/handbook.yml", "snippets/")) and line_no.isdigit() and rest.startswith(" HB"), line
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


def test_retired_registry_entries_are_checked_on_their_own_line() -> None:
    found = codes_at(load_corpus(FIXTURE), "content/handbook.yml")
    assert ("HB023", 6) in found  # OLD-002 says nothing about what replaced it
    assert ("HB025", 7) in found  # OLD-003 is replaced by a rule that does not exist
    assert ("HB023", 8) in found  # OLD-001 retired a second time
    assert not {c for c, line in found if line == 5}  # the valid entry


def test_links_in_a_rule_must_resolve_inside_content() -> None:
    corpus = load_corpus(FIXTURE)
    links = [(d.location.line, d.message) for d in corpus.diagnostics if d.code == "HB042"]
    assert links == [
        (11, "link '../transport/nope.md' points to a file that does not exist"),
        (12, "link '../../../README.md' leaves content/, so the site cannot serve it"),
    ]


PROTOCOL_RULE = """---
id: TRN-009
title: A rule that may speak for the protocol
scope: universal
basis: security
threats: [CWE-20]
attack: A hostile client sends a frame the server never expected and takes it over.
severity: low
gate: transport
check: manual
since: "0.1.0"
{spec}---

Text.

## Why it matters

x

## How it is verified

x

## References

- {citation}
"""


@pytest.mark.parametrize(
    ("spec", "citation", "expected"),
    [
        ("", "The MCP specification, Transports, stdio.", {("HB014", 26)}),
        ("spec: 2025-11-25 basic/transports#stdio\n", "The MCP specification, Transports, stdio.", set()),
        ("", "MCP specification 2025-11-25, Transports, *stdio*.", set()),
        ("", "JSON-RPC 2.0 specification, section 5.", set()),  # not a protocol rule
    ],
    ids=["no-revision", "spec-field", "revision-in-citation", "no-mcp-citation"],
)
def test_a_protocol_rule_must_name_the_revision_it_speaks_for(tmp_path: Path, spec: str, citation: str, expected: set) -> None:
    rules = tmp_path / "content" / "rules" / "transport"
    rules.mkdir(parents=True)
    (tmp_path / "content" / "handbook.yml").write_text('version: "1.0.0"\ngates: [{key: transport, title: T}]\n')
    (rules / "r.md").write_text(PROTOCOL_RULE.format(spec=spec, citation=citation))
    assert codes_at(load_corpus(tmp_path), "r.md") == expected
    assert ("HB014", 24) in codes_at(load_corpus(FIXTURE), "links-and-spec.md")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def test_a_rule_deleted_in_history_must_be_retired(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path, dirs_exist_ok=True)
    handbook = tmp_path / "content" / "handbook.yml"
    handbook.write_text(handbook.read_text().split("retired:")[0] + "retired: []\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "t@example.invalid")
    _git(tmp_path, "config", "user.name", "test")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    _git(tmp_path, "rm", "-q", "content/rules/misc/dup-id.md", "content/rules/misc/links-and-spec.md")
    _git(tmp_path, "commit", "-q", "-m", "delete two rules")
    out = run_in_process("check", cwd=tmp_path).stdout
    gone = [ln for ln in out.splitlines() if " HB024 " in ln]
    assert len(gone) == 1 and gone[0].startswith("content/handbook.yml:4: HB024 rule TRN-004 (deleted in "), out  # TRN-001 lives on
    handbook.write_text(handbook.read_text().replace(
        "retired: []", 'retired:\n  - {id: TRN-004, retired_in: "10.0.0", replaced_by: null, reason: "merged"}'))
    assert " HB024 " not in run_in_process("check", cwd=tmp_path).stdout


def test_check_against_a_ref_git_cannot_read_is_a_usage_error() -> None:
    result = run_cli("check", "--base", "no-such-ref-anywhere", cwd=FIXTURE)
    assert result.returncode == 2 and result.stdout == ""
    assert "cannot read the doctrine at 'no-such-ref-anywhere'" in result.stderr and "Traceback" not in result.stderr
