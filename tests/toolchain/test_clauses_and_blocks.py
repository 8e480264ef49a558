"""A claim in clauses (HB060..HB064), and every block that no probe proves is run or checked by a real tool
(HB037, HB038, the block runner): each problem is reported at its line, and a block that raises, hangs or breaks
the promise its kind must keep fails."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.lint import Vocabulary, lint
from mcp_handbook.model import Location, Snippet
from mcp_handbook.promises import run as block_run

VOCABULARY = Vocabulary(probes={"demo_probe": frozenset({"too_big", "too_slow"})}, seams=frozenset({"read_frames"}),
                        promises=frozenset({"demo_promise"}), preludes=frozenset({"demo_prelude"}),
                        languages=frozenset({"python", "json", "yaml", "sh"}))

AUTOMATED = """---
id: TRN-099
title: A rule whose clauses are under test
scope: opinionated
basis: practice
severity: low
gate: transport
check: automated
probe: demo_probe
seam: read_frames
since: "1.3.0"
{clauses}---

Text.

```python wrong expect={expect}
def read_frames(stream, limit):
    return []
```

```python correct
def read_frames(stream, limit):
    return []
```

{extra}
## Why it matters

x

## How it is verified

x

## When to deviate

x

## References

- none
"""


def _lint(tmp_path: Path, text: str) -> set[tuple[str, int, str]]:
    rules = tmp_path / "content" / "rules" / "transport"
    rules.mkdir(parents=True, exist_ok=True)
    (tmp_path / "content" / "handbook.yml").write_text('version: "1.3.0"\ngates: [{key: transport, title: T}]\n')
    (rules / "r.md").write_text(text)
    # HB065 (no fix: line) is left out: its own test is in tests/audit/test_author_report.py, and a fix: line here
    # would move every line number these tests name
    return {(d.code, d.location.line, d.message) for d in lint(load_corpus(tmp_path), VOCABULARY) if d.code != "HB065"}


BOTH = 'clauses:\n  - {says: "stops at a cap", seen_by: [too_big]}\n  - {says: "stops in time", seen_by: [too_slow]}\n'


def _rule(clauses: str = BOTH, expect: str = "too_big", extra: str = "") -> str:
    return AUTOMATED.format(clauses=clauses, expect=expect, extra=extra)


def test_clauses_covering_every_reason_with_a_wrong_block_each_lint_clean(tmp_path: Path) -> None:
    extra = "```python wrong expect=too_slow\ndef read_frames(stream, limit):\n    return [1]\n```\n"
    assert _lint(tmp_path, _rule(extra=extra)) == set()


@pytest.mark.parametrize(
    ("clauses", "expect", "extra", "expected"),
    [
        ("", "too_big", "", {("HB060", 8, "an automated rule needs `clauses:`: its claim, clause by clause")}),
        ('clauses:\n  - {says: "stops at a cap", seen_by: [too_big, too_large]}\n'
         '  - {says: "stops in time", unchecked: "no probe can wait that long"}\n',
         "too_big", "", {("HB061", 12, "clause 'stops at a cap': probe 'demo_probe' has no reason 'too_large'"),
                         ("HB062", 12, "probe 'demo_probe' can fail with too_slow, which no clause is seen_by")}),
        (BOTH, "too_big", "", {("HB063", 12, "no WRONG block breaks clause 'stops in time' alone")}),
        (BOTH, "too_big,too_slow", "", {("HB063", 12, "no WRONG block breaks clause 'stops at a cap' alone"),
                                        ("HB063", 12, "no WRONG block breaks clause 'stops in time' alone"),
                                        ("HB064", 19, "TRN-099.wrong1 expects too_big, too_slow, which no single clause is seen_by")}),
        ('clauses:\n  - {says: "stops", seen_by: [too_big], unchecked: "both at once"}\n', "too_big", "",
         {("HB012", 12, "field 'clauses' clause 'stops' needs exactly one of seen_by: [probe reasons] or unchecked: why no probe can see it")}),
    ],
    ids=["no-clauses", "unknown-and-unclaimed-reason", "clause-no-wrong-breaks", "wrong-breaks-two-clauses", "seen-and-unchecked"],
)
def test_clause_problems_are_reported_at_the_clauses_field(tmp_path: Path, clauses: str, expect: str, extra: str, expected: set) -> None:
    assert _lint(tmp_path, _rule(clauses, expect, extra)) >= expected
    assert {d[0] for d in _lint(tmp_path, _rule(clauses, expect, extra))} == {d[0] for d in expected}


@pytest.mark.parametrize(
    ("fence", "expected"),
    [
        ("```text\na list\n```", ("HB038", "TRN-099.example1 is a text block that nothing runs or checks")),
        ('```text norun="a list of tool names"\na list\n```', None),
        ('```text norun="why"\na list\n```', ("HB038", "TRN-099.example1: norun= must say why the block cannot run, in a few words")),
        ("```python promise=no_such\nx = 1\n```", ("HB037", "TRN-099.example1: no promise check 'no_such'")),
        ("```python needs=no_such\nx = 1\n```", ("HB037", "TRN-099.example1: no prelude 'no_such'")),
        ("```python promise=demo_promise needs=demo_prelude\nx = 1\n```", None),
    ],
    ids=["text-unrun", "text-norun", "norun-without-why", "unknown-promise", "unknown-prelude", "known-names"],
)
def test_every_block_is_run_or_says_why_not(tmp_path: Path, fence: str, expected: tuple[str, str] | None) -> None:
    block = "```python wrong expect=too_slow\ndef read_frames(s, l):\n    return [1]\n```\n\n"
    found = {(code, message) for code, _, message in _lint(tmp_path, _rule(extra=block + fence + "\n"))}
    assert found == ({expected} if expected else set())


def test_a_proved_block_takes_no_promise(tmp_path: Path) -> None:
    text = _rule(extra="```python wrong expect=too_slow promise=demo_promise\ndef read_frames(s, l):\n    return [1]\n```\n")
    assert ("HB037", 29, "TRN-099.wrong2 is proved by probe 'demo_probe': promise= and norun= do not apply") in _lint(tmp_path, text)


def _block(code: str, *, language: str = "python", kind: str = "correct", norun: str = "") -> Snippet:
    return Snippet(rule_id="OPS-099", kind=kind, index=1, language=language, code=code,  # type: ignore[arg-type]
                   location=Location("content/rules/operations/demo.md", 10, 14), code_line=11, seam=None, norun=norun)


def test_a_block_that_runs_to_the_end_passes_and_one_that_raises_names_its_markdown_line() -> None:
    assert block_run.judge_block(None, _block("import json\nVALUE = json.dumps({})\n")).ok  # type: ignore[arg-type]
    verdict = block_run.judge_block(None, _block("import os\n\nTOKEN = os.environ['NOT_SET_ANYWHERE']\n"))  # type: ignore[arg-type]
    assert not verdict.ok and verdict.outcome == "raised"
    assert 'content/rules/operations/demo.md", line 13' in verdict.message  # the block's third line, in the file
    assert "KeyError: 'NOT_SET_ANYWHERE'" in verdict.message


def test_a_block_runs_in_a_temporary_folder_with_no_secrets_of_the_test_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HB_SECRET_OF_THE_RUN", "do-not-pass")
    code = "import os, pathlib\nassert 'HB_SECRET_OF_THE_RUN' not in os.environ\nassert pathlib.Path.cwd().name.startswith('hb-block-')\n"
    assert block_run.judge_block(None, _block(code)).ok  # type: ignore[arg-type]


def test_a_block_that_hangs_is_stopped_with_what_it_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(block_run, "DEFAULT_SECONDS", 2.0)
    pid_file = tmp_path / "child.pid"
    code = (f"import subprocess, time\nchild = subprocess.Popen(['sleep', '60'])\nopen({str(pid_file)!r}, 'w').write(str(child.pid))\n"
            "time.sleep(60)\n")
    began = time.monotonic()
    verdict = block_run.judge_block(None, _block(code))  # type: ignore[arg-type]
    assert not verdict.ok and verdict.outcome == "timeout"
    assert time.monotonic() - began < 10
    assert not _alive(int(pid_file.read_text()))  # the block's child went with it


def _alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its parent to read its status does not)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


def test_what_a_block_prints_does_not_spoil_its_verdict() -> None:
    assert block_run.judge_block(None, _block('print("{\\"status\\": \\"raised\\"}")\nprint("noise")\n')).ok  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "code", "problem"),
    [
        ("json", '{"name": "a",}', "not valid JSON"),
        ("json", '{"name": "a"}', None),
        ("yaml", "a: [1, 2", "not valid YAML"),
        ("sh", 'rm -rf $DIR/\n', "shellcheck found problems"),
        ("sh", 'rm -rf -- "${DIR:?}/"\n', None),
        ("yaml", "on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.issue.title }}\n",
         "actionlint found problems"),
    ],
    ids=["json-bad", "json-good", "yaml-bad", "sh-unquoted", "sh-good", "workflow-injection"],
)
def test_other_languages_are_checked_by_their_tools(language: str, code: str, problem: str | None) -> None:
    from handbook_testing import require_tool

    if language == "sh":
        require_tool("shellcheck", "shell blocks are checked with it")
    if "jobs:" in code:
        require_tool("actionlint", "workflow blocks are checked with it")
    verdict = block_run.judge_block(None, _block(code, language=language))  # type: ignore[arg-type]
    assert verdict.ok is (problem is None), verdict.message
    if problem:
        assert problem in verdict.message


def test_a_block_marked_norun_is_not_run_and_keeps_its_reason() -> None:
    verdict = block_run.judge_block(None, _block("this is not code", language="text", norun="a list of tool names"))  # type: ignore[arg-type]
    assert verdict.ok and verdict.outcome == "not run" and verdict.message == "a list of tool names"


@pytest.mark.parametrize(
    ("kind", "outcome", "ok"),
    [("correct", {"status": "kept"}, True), ("correct", {"status": "broke", "reason": "late"}, False),
     ("wrong", {"status": "broke", "reason": "late"}, True), ("wrong", {"status": "kept"}, False),
     ("wrong", {"status": "broke", "reason": "not_its_own"}, False), ("wrong", {"status": "raised", "where": "block", "error": "x"}, False)],
    ids=["correct-keeps", "correct-breaks", "wrong-breaks", "wrong-keeps", "wrong-breaks-for-another-reason", "wrong-raises"],
)
def test_a_promise_must_be_kept_by_correct_and_broken_by_wrong_for_its_own_reason(
        monkeypatch: pytest.MonkeyPatch, kind: str, outcome: dict, ok: bool) -> None:
    from mcp_handbook.promises.registry import Promise

    monkeypatch.setitem(block_run.PROMISES, "demo_promise", Promise("demo_promise", "demo", lambda m: None, {"late": "too late"}))
    block = Snippet(rule_id="OPS-099", kind=kind, index=1, language="python", code="x = 1\n",  # type: ignore[arg-type]
                    location=Location("d.md", 1, 3), code_line=2, seam=None, promise="demo_promise")
    assert block_run._python_verdict(block, outcome, time.monotonic()).ok is ok


def test_every_python_block_of_the_handbook_is_proved_or_run() -> None:
    """No Python block in content/ goes unexecuted: a probe proves it, or the tests run it (none is marked norun)."""
    from mcp_handbook.proving.evidence import provable

    corpus = load_corpus(Path(__file__).resolve().parents[2])
    python = [(r, b) for r in corpus.rules for b in r.blocks if b.language == "python"]
    assert len(python) > 300
    assert [b.name for _, b in python if b.norun] == []
    unproved = [b for r, b in python if not provable(r, b)]
    assert unproved and all(not b.norun for b in unproved)


def test_a_fence_whose_options_cannot_be_split_is_reported_not_a_crash(tmp_path: Path) -> None:
    """An unclosed quote in the fence's info string: HB035 names it, and the rest of the rule is still read."""
    found = {(code, message) for code, _, message in _lint(tmp_path, _rule(extra='```python wrong title="unclosed\nx = 1\n```\n'))}
    assert ("HB035", "fence info string cannot be split: No closing quotation") in found
