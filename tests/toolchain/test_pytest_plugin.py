"""pytest alone runs the doctrine: snippets are items, failures name the markdown line."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # pytest in a subprocess proving a copy of the doctrine

pytest_plugins = ["pytester"]


@pytest.fixture
def handbook(pytester: pytest.Pytester, project_root: Path) -> Path:
    for name in ("content",):
        shutil.copytree(project_root / name, pytester.path / name)
    shutil.copy(project_root / "mkdocs.yml", pytester.path / "mkdocs.yml")
    return pytester.path


def test_every_snippet_is_collected_by_rule_id_and_kind(pytester: pytest.Pytester, handbook: Path) -> None:
    result = pytester.runpytest_subprocess("content", "--collect-only", "-q")
    ids = [ln for ln in result.outlines if "::" in ln]
    assert "content/rules/security/path-containment.md::SEC-001:wrong1" in ids
    assert "content/rules/security/path-containment.md::SEC-001:correct1" in ids
    assert len(ids) >= 6


def test_a_one_rule_handbook_proves_itself(pytester: pytest.Pytester, handbook: Path) -> None:
    """The plugin on a handbook of one rule (the whole doctrine is proved by the suite's own run of content/)."""
    keep = handbook / "content" / "rules" / "transport" / "frame-size-cap.md"
    for path in (handbook / "content" / "rules").rglob("*.md"):
        if path != keep:
            path.unlink()
    text = keep.read_text()
    alone = re.sub(r"^related: .*$", "related: []", text, count=1, flags=re.M)
    keep.write_text(re.sub(r"\[([^\]]*)\]\([^)]*\.md[^)]*\)", r"\1", alone))  # links to rules that are not here
    result = pytester.runpytest_subprocess("content", "-q")
    blocks = len(re.findall(r"```python (?:wrong|correct)", text))
    result.assert_outcomes(passed=blocks)  # each block (a lint item appears only for a file that does not lint)
    assert "TRN-002" in pytester.runpytest_subprocess("content", "--collect-only", "-q").stdout.str()


def test_k_selects_one_rule(pytester: pytest.Pytester, handbook: Path) -> None:
    result = pytester.runpytest_subprocess("content", "-q", "-k", "TRN-002")
    text = (handbook / "content" / "rules" / "transport" / "frame-size-cap.md").read_text()
    result.assert_outcomes(passed=len(re.findall(r"```python (?:wrong|correct)", text)))


def test_a_correct_block_replaced_by_wrong_code_fails_and_names_the_line(pytester: pytest.Pytester, handbook: Path) -> None:
    rule = handbook / "content" / "rules" / "security" / "path-containment.md"
    text = rule.read_text()
    wrong_body = re.search(r"```python wrong title=\"string-prefix[^\n]*\n(.*?)```", text, re.S).group(1)
    correct = re.search(r"(```python correct[^\n]*\n)(.*?)```", text, re.S)
    rule.write_text(text[: correct.start(2)] + wrong_body + text[correct.end(2):])
    fence_line = text[: correct.start(1)].count("\n") + 1
    result = pytester.runpytest_subprocess("content", "-q", "-k", "SEC-001")
    result.assert_outcomes(passed=len(re.findall(r"```python (?:wrong|correct)", text)) - 1, failed=1)
    out = result.stdout.str()
    assert f"content/rules/security/path-containment.md:{fence_line}: SEC-001 CORRECT block 1" in out
    assert "expected the probe to PASS, it said FAIL" in out


def test_a_wrong_block_that_is_merely_broken_does_not_pass(pytester: pytest.Pytester, handbook: Path) -> None:
    rule = handbook / "content" / "rules" / "transport" / "stdout-jsonrpc-only.md"
    text = rule.read_text()
    rule.write_text(text.replace("stream.write(json.dumps(message, indent=2)", "stream.write(jsn.dumps(message, indent=2)"))
    result = pytester.runpytest_subprocess("content", "-q", "-k", "TRN-001")
    result.assert_outcomes(passed=1, failed=1)
    assert "the snippet is broken, not wrong" in result.stdout.str()
    assert "NameError" in result.stdout.str()


def test_a_rule_that_does_not_lint_fails_its_file(pytester: pytest.Pytester, handbook: Path) -> None:
    rule = handbook / "content" / "rules" / "transport" / "frame-size-cap.md"
    text = rule.read_text()
    severity = re.search(r"^severity: \w+$", text, re.M)
    line = text[: severity.start()].count("\n") + 1
    rule.write_text(text[: severity.start()] + "severity: severe" + text[severity.end():])
    result = pytester.runpytest_subprocess("content", "-q", "-k", "lint")
    result.assert_outcomes(failed=1)
    assert f"content/rules/transport/frame-size-cap.md:{line}: HB012 field 'severity'" in result.stdout.str()


def test_the_quick_loop_proves_what_changed_and_a_full_run_proves_everything(
        pytester: pytest.Pytester, handbook: Path, project_root: Path) -> None:
    """A block whose passing proof is recorded for exactly its inputs is marked slow: ``-m "not slow"`` proves the
    blocks a change touched, and a run without ``-m`` still proves every block."""
    (handbook / "snippets").mkdir()
    shutil.copy(project_root / "snippets" / "evidence.json", handbook / "snippets" / "evidence.json")
    rule = handbook / "content" / "rules" / "transport" / "frame-size-cap.md"
    text = rule.read_text()
    fence = re.search(r"```python correct[^\n]*\n", text)
    rule.write_text(text[: fence.end()] + "# an edit\n" + text[fence.end():])

    def collected(*args: str) -> list[str]:
        out = pytester.runpytest_subprocess("content", "--collect-only", "-q", *args).outlines
        return [ln for ln in out if "::" in ln]

    quick = [item for item in collected("-m", "not slow") if not item.endswith(":run")]  # blocks no probe proves always run
    assert quick == ["content/rules/transport/frame-size-cap.md::TRN-002:correct1"]
    assert len(collected()) > 200


def test_the_quick_loop_over_unchanged_content_succeeds_with_nothing_to_prove(
        pytester: pytest.Pytester, handbook: Path, project_root: Path) -> None:
    """With every proof current, ``-m "not slow"`` selects nothing: that is success, not pytest's "no tests" (5).
    A ``-k`` that matches nothing still is exit 5: a typo in a selection is never hidden."""
    (handbook / "snippets").mkdir()
    shutil.copy(project_root / "snippets" / "evidence.json", handbook / "snippets" / "evidence.json")
    quick = pytester.runpytest_subprocess("content", "-q", "-m", "not slow", "-k", "not run")  # proofs only
    assert quick.ret == pytest.ExitCode.OK, quick.outlines
    assert any("nothing to prove again" in line for line in quick.outlines)
    typo = pytester.runpytest_subprocess("content", "-q", "-m", "not slow", "-k", "NO-SUCH-RULE")
    assert typo.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_block_that_passed_for_the_same_inputs_is_left_out_of_the_quick_loop(
        pytester: pytest.Pytester, handbook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks no probe proves are remembered in the user's cache when they pass: the quick loop then leaves them out
    until the block (or what runs it) changes; a run without ``-m`` runs them all."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    blocks = ("content", "-q", "-k", "UX-012 and run")

    def quick() -> list[str]:
        out = pytester.runpytest_subprocess(*blocks, "-m", "not slow", "--collect-only").outlines
        return [ln for ln in out if "::" in ln]

    assert quick() == ["content/rules/agent-ux/about-ten-primary-tools.md::UX-012:wrong1:run",
                       "content/rules/agent-ux/about-ten-primary-tools.md::UX-012:correct1:run"]
    assert pytester.runpytest_subprocess(*blocks).ret == pytest.ExitCode.OK
    assert quick() == []
    rule = handbook / "content" / "rules" / "agent-ux" / "about-ten-primary-tools.md"
    text = rule.read_text()
    rule.write_text(text.replace('"close_issue"],', '"close_issue" ],', 1))  # the CORRECT block, to the same meaning
    assert quick() == ["content/rules/agent-ux/about-ten-primary-tools.md::UX-012:correct1:run"]
    assert len([ln for ln in pytester.runpytest_subprocess(*blocks, "--collect-only").outlines if "::" in ln]) == 2


def test_a_proof_is_an_item_that_x_and_durations_see(pytester: pytest.Pytester, handbook: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Each proof is proved in its own item's ``runtest``: ``-x`` stops at the first failing one and the proofs not
    started by then never run (their seconds are never kept), and ``--durations`` lists proofs by their seconds."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # where the seconds of the proofs that ran are kept
    rule = handbook / "content" / "rules" / "security" / "path-containment.md"
    text = rule.read_text()
    wrong_body = re.search(r"```python wrong title=\"string-prefix[^\n]*\n(.*?)```", text, re.S).group(1)
    correct = re.search(r"(```python correct[^\n]*\n)(.*?)```", text, re.S)
    rule.write_text(text[: correct.start(2)] + wrong_body + text[correct.end(2):])
    result = pytester.runpytest_subprocess("content", "-x", "-rA", "--durations=0", "-k", "SEC-001 or TRN-002",
                                           "--handbook-workers", "1")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED and "stopping after 1 failures" in out
    assert "TRN-002" not in "\n".join(line for line in result.outlines if line.startswith(("PASSED", "FAILED")))
    assert re.search(r"\d+\.\d+s call +content/rules/security/path-containment\.md::SEC-001:wrong1", out), out
    ran = json.loads((tmp_path / "cache" / "mcp-handbook" / "proof-seconds.json").read_text(encoding="utf-8"))
    assert "SEC-001.correct1" in ran
    trn = len(re.findall(r"```python (?:wrong|correct)", (handbook / "content/rules/transport/frame-size-cap.md").read_text()))
    assert len([name for name in ran if name.startswith("TRN-002.")]) < trn  # one may start as the failing one ends
