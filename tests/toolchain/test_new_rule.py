"""``mcp-handbook new-rule GATE SLUG [--automated]``: the next free id (retired ones counted), a skeleton that
``check`` accepts except for the placeholders it names (HB016), errors that say what is wrong, and the done-when of
issue 27: a new automated rule is ``new-rule``, then one markdown file and one probe module edited, nothing else."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from mcp_handbook import load_corpus
from mcp_handbook.cli import main
from mcp_handbook.contrib.new_rule import id_prefix, next_free_id, next_minor
from mcp_handbook.naming import PLACEHOLDER
from mcp_handbook.parse import parse_content

FINISHED = Path(__file__).parent / "fixtures" / "new_rule"


def _cli(root: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--root", str(root), *args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def handbook(tmp_path: Path, project_root: Path) -> Path:
    """The doctrine and an empty probes package: enough for ``new-rule`` to write both files."""
    root = tmp_path / "hb"
    shutil.copytree(project_root / "content", root / "content")
    shutil.copy(project_root / "mkdocs.yml", root / "mkdocs.yml")
    (root / "tools" / "mcp_handbook" / "probes").mkdir(parents=True)
    return root


def test_the_next_id_is_one_past_every_id_ever_used_retired_ones_included(project_root: Path) -> None:
    corpus = parse_content(project_root)
    ux = [int(r.id.split("-")[1]) for r in corpus.rules if r.id.startswith("UX-")]
    assert next_free_id(corpus, "UX") == f"UX-{max(ux) + 1:03d}"
    retired_higher = replace(corpus, retired=(*corpus.retired, {"id": f"UX-{max(ux) + 5:03d}", "retired_in": "9.0.0"}))
    assert next_free_id(retired_higher, "UX") == f"UX-{max(ux) + 6:03d}"  # never a retired number, nor one below it
    assert next_free_id(corpus, "NEW") == "NEW-001"


def test_a_gates_prefix_is_read_from_its_rules(project_root: Path) -> None:
    corpus = parse_content(project_root)
    assert id_prefix(corpus, "security") == "SEC" and id_prefix(corpus, "agent-ux") == "UX"
    assert next_minor("1.5.0") == "1.6.0" and next_minor("2.0.3") == "2.1.0"


def test_a_manual_rule_is_written_with_the_next_id_and_check_names_only_its_placeholders(handbook: Path) -> None:
    expected = next_free_id(parse_content(handbook), "SEC")
    code, out, err = _cli(handbook, "new-rule", "security", "no-debug-endpoints")
    assert code == 0, err
    path = handbook / "content/rules/security/no-debug-endpoints.md"
    assert out.splitlines() == [f"content/rules/security/no-debug-endpoints.md: written ({expected})"]
    assert f"id: {expected}\n" in path.read_text() and "check: manual\n" in path.read_text()
    assert not list((handbook / "tools/mcp_handbook/probes").rglob("*.py"))  # a manual rule has no probe
    problems = [d for d in load_corpus(handbook, proving=True).diagnostics]
    assert problems and {(d.location.path, d.code) for d in problems} == {("content/rules/security/no-debug-endpoints.md", "HB016")}
    marked = [n for n, line in enumerate(path.read_text().splitlines(), 1) if PLACEHOLDER in line]
    assert sorted(d.location.line for d in problems) == marked  # each placeholder named once, at its line


def test_an_automated_rule_gets_its_probe_module_in_the_gates_folder(handbook: Path) -> None:
    code, out, err = _cli(handbook, "new-rule", "agent-ux", "tool-count-small", "--automated")
    assert code == 0, err
    probe = handbook / "tools/mcp_handbook/probes/agent_ux/tool_count_small.py"
    assert out.splitlines()[1] == f"{probe.relative_to(handbook)}: written"
    source = probe.read_text()
    assert '@probe("tool_count_small", ' in source and "def tool_count_small(target: Target) -> Finding:" in source
    assert "REASONS = {" in source and source.startswith('"""UX-')
    compile(source, str(probe), "exec")
    rule = (handbook / "content/rules/agent-ux/tool-count-small.md").read_text()
    assert "probe: tool_count_small\n" in rule and "seen_by: [rule_broken]" in rule and "expect=rule_broken" in rule


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["no-such-gate", "a-rule"], "unknown gate 'no-such-gate': content/handbook.yml declares transport, "),
        (["security", "path-containment"], "content/rules/security/path-containment.md exists already"),
        (["agent-ux", "path-containment"], "slug 'path-containment' is taken by content/rules/security/path-containment.md"),
        (["security", "Bad_Slug"], "slug 'Bad_Slug' is not lower-case words joined by '-'"),
    ],
)
def test_errors_name_what_is_wrong_and_write_nothing(handbook: Path, args: list[str], says: str) -> None:
    before = sorted(handbook.rglob("*"))
    code, out, err = _cli(handbook, "new-rule", *args, "--automated")
    assert code == 2 and out == "" and says in err, err
    assert sorted(handbook.rglob("*")) == before


def test_an_existing_probe_module_is_never_overwritten(handbook: Path) -> None:
    taken = handbook / "tools/mcp_handbook/probes/security/no_debug_endpoints.py"
    taken.parent.mkdir()
    taken.write_text("kept\n")
    code, _out, err = _cli(handbook, "new-rule", "security", "no-debug-endpoints", "--automated")
    assert code == 2 and "no_debug_endpoints.py exists already" in err
    assert taken.read_text() == "kept\n" and not (handbook / "content/rules/security/no-debug-endpoints.md").exists()


def test_automated_without_a_probes_package_says_so(handbook: Path) -> None:
    shutil.rmtree(handbook / "tools")
    code, _out, err = _cli(handbook, "new-rule", "security", "no-debug-endpoints", "--automated")
    assert code == 2 and "has none" in err


def _run(copy: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(copy / "tools")}
    return subprocess.run(args, cwd=copy, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_new_automated_rule_is_new_rule_then_two_files_edited(tmp_path: Path, project_root: Path) -> None:
    """Issue 27's done-when, in a copy of the repository: ``new-rule``, then the rule's markdown and its probe module
    written; ``check`` names only placeholders until then, ``snippets`` writes the generated blocks, and the rule's
    WRONG and CORRECT blocks prove against the reference server. Nothing else is edited."""
    copy = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", ".git", "site", ".tools")
    for part in ("content", "tools", "snippets"):
        shutil.copytree(project_root / part, copy / part, ignore=ignore)
    for part in ("mkdocs.yml", "pyproject.toml"):
        shutil.copy(project_root / part, copy / part)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run([*git, *step], cwd=copy, check=True, capture_output=True)
    cli = [sys.executable, "-m", "mcp_handbook.cli"]

    made = _run(copy, *cli, "new-rule", "tool-definitions", "short-tool-descriptions", "--automated")
    assert made.returncode == 0, made.stderr
    rule_id = made.stdout.split("(")[1].split(")")[0]
    rule = copy / "content/rules/tool-definitions/short-tool-descriptions.md"
    probe = copy / "tools/mcp_handbook/probes/tool_definitions/short_tool_descriptions.py"
    skeleton = _run(copy, *cli, "check")
    codes = {line.split(": ")[1].split()[0] for line in skeleton.stdout.splitlines()}
    assert skeleton.returncode == 1 and codes == {"HB016", "HB050"}, skeleton.stdout  # placeholders; snippets to write

    since = next(line for line in rule.read_text().splitlines() if line.startswith("since:")).split('"')[1]
    rule.write_text((FINISHED / rule.name).read_text().replace("RULE_ID", rule_id).replace("SINCE", since))
    probe.write_text((FINISHED / probe.name).read_text().replace("RULE_ID", rule_id))
    assert _run(copy, *cli, "snippets").returncode == 0
    checked = _run(copy, *cli, "check")
    assert checked.returncode == 0, checked.stdout

    status = _run(copy, "git", "status", "--porcelain", "--untracked-files=all").stdout.split("\n")
    changed = sorted(line[3:] for line in status if line)
    assert changed == ["content/rules/tool-definitions/short-tool-descriptions.md",
                       f"snippets/{rule_id}/correct1.py", f"snippets/{rule_id}/wrong1.py",
                       "tools/mcp_handbook/probes/tool_definitions/short_tool_descriptions.py"]
    proved = _run(copy, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(rule.relative_to(copy)))
    assert proved.returncode == 0 and "2 passed" in proved.stdout, proved.stdout[-2000:]
