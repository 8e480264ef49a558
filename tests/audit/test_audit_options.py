"""What the auditor is told about the server: the folder it serves (``--root``, ``{workspace}``), whether it may
call tools at all (``--no-tool-calls``); and what it never does: guess a root, print the secret, cut JSON evidence,
or wait on a server that cannot serve once per probe."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest
from audit_helpers import HOSTILE, run_cli

from mcp_handbook import load_corpus
from mcp_handbook.audit import run_audit
from mcp_handbook.audit.plan import NOT_CHECKED, AuditOptions
from mcp_handbook.audit.sheet import evidence_text
from mcp_handbook.audit.summary import summary_lines
from mcp_handbook.probes.support import Finding

QUIRKS = Path(__file__).resolve().parent / "quirks"
ROOT_ARG = [sys.executable, str(QUIRKS / "root_arg.py")]
PATH_RULES = frozenset({"SEC-001", "SEC-015"})


@pytest.fixture(scope="module")
def corpus(project_root: Path):
    return load_corpus(project_root)


def _verdicts(result) -> dict[str, tuple[str, str, str]]:
    return {f.rule.id: (f.finding.status, f.na, f.finding.summary) for f in result.findings}


@pytest.mark.slow  # a whole audit
def test_without_the_root_path_rules_are_not_checked_never_guessed(corpus, tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    result = run_audit(corpus, [*ROOT_ARG, "--dir", str(served)], options=AuditOptions(rules=PATH_RULES, wait=2))
    for rule_id in PATH_RULES:
        status, na, summary = _verdicts(result)[rule_id]
        assert (status, na) == ("N/A", NOT_CHECKED), (rule_id, summary)
        assert summary.startswith("not checked: root unknown"), summary
    assert list(served.iterdir()) == []


@pytest.mark.slow  # a whole audit
def test_workspace_in_the_command_tells_the_root(corpus) -> None:
    result = run_audit(corpus, [*ROOT_ARG, "--dir", "{workspace}"], options=AuditOptions(rules=PATH_RULES, wait=2))
    verdicts = _verdicts(result)
    assert verdicts["SEC-001"][0] == "PASS", verdicts["SEC-001"]
    assert verdicts["SEC-015"][0] == "PASS", verdicts["SEC-015"]


@pytest.mark.slow  # a whole audit
def test_a_given_root_is_probed_and_left_as_it_was(corpus, tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.mkdir()
    (served / "keep.txt").write_text("the user's own file\n")
    options = AuditOptions(rules=PATH_RULES, wait=2, roots=(str(served),))
    result = run_audit(corpus, [*ROOT_ARG, "--dir", str(served)], options=options)
    assert _verdicts(result)["SEC-001"][0] == "PASS", _verdicts(result)["SEC-001"]
    assert sorted(p.name for p in served.iterdir()) == ["keep.txt"]  # what the probes planted is gone again
    assert sorted(p.name for p in tmp_path.iterdir()) == ["served"]  # and nothing was written beside it


@pytest.mark.slow  # a whole audit
def test_a_tool_that_takes_only_the_root_itself_is_not_called_a_refuse_all(corpus) -> None:
    """Like mcp-server-git's ``repo_path``: a plain file inside is refused, the repository itself is served."""
    command = [*ROOT_ARG, "--dir", "{workspace}", "--repository-only"]
    result = run_audit(corpus, command, options=AuditOptions(rules=frozenset({"SEC-001"}), wait=2))
    assert _verdicts(result)["SEC-001"][0] == "PASS", _verdicts(result)["SEC-001"]


@pytest.mark.slow  # a whole audit
def test_a_root_the_server_does_not_contain_is_caught(corpus, tmp_path: Path) -> None:
    """The same server told a different folder than it really serves: the escape attempts aimed at the given root
    are served from the real one, or its inside paths refused; either way not a PASS."""
    served = tmp_path / "served"
    served.mkdir()
    options = AuditOptions(rules=frozenset({"SEC-001"}), wait=2, roots=(str(served),))
    result = run_audit(corpus, [*ROOT_ARG, "--dir", "/"], options=options)
    assert _verdicts(result)["SEC-001"][0] == "FAIL", _verdicts(result)["SEC-001"]


@pytest.mark.slow  # a whole audit
def test_no_tool_calls_calls_none(corpus, tmp_path: Path) -> None:
    tripwire = tmp_path / "tripwire"
    command = [sys.executable, str(HOSTILE / "tiny.py"), "--tripwire", str(tripwire)]
    result = run_audit(corpus, command, options=AuditOptions(wait=2, tool_calls=False, rules=frozenset(
        {"SEC-001", "ERR-005", "TRN-001", "TOOL-005"})))
    verdicts = _verdicts(result)
    assert verdicts["SEC-001"][:2] == ("N/A", NOT_CHECKED) and "--no-tool-calls" in verdicts["SEC-001"][2]
    assert verdicts["TRN-001"][0] == "PASS" and verdicts["TOOL-005"][0] == "PASS"  # what needs no call is still judged
    assert not tripwire.exists()
    # nothing failed, but HIGH rules of the gate were not checked: not a pass (exit 3), and the summary says which
    assert [f.rule.id for f in result.withheld()] == ["ERR-005", "SEC-001"] and result.exit_code == 3
    assert "not checked under --no-tool-calls (ERR-005, SEC-001): not known to pass: exit 3" in "\n".join(
        summary_lines(result, outputs=[], manual=0, corpus=corpus))
    allowed = run_audit(corpus, command, options=AuditOptions(wait=2, allow_tool_calls=None, rules=frozenset({"TRN-001"})))
    assert allowed.withheld() == [] and allowed.exit_code == 0


@pytest.mark.slow  # a whole audit
def test_a_server_that_cannot_serve_is_reported_once_and_quickly(project_root: Path, tmp_path: Path) -> None:
    """Default settings, every rule: a silent server costs the preflight's wait, not one wait per probe."""
    out = tmp_path / "audit.json"
    started = time.monotonic()
    run = run_cli(project_root, "audit", "-o", str(out), "--", sys.executable, str(HOSTILE / "silent.py"), limit=60)
    assert time.monotonic() - started < 30, run.text
    assert run.code == 1, run.text
    assert run.stdout.startswith("NOT AUDITED: the server did not complete the handshake"), run.stdout
    assert "could not be audited" in run.stdout
    rows = [r for r in json.loads(out.read_text())["items"] if r.get("status")]
    assert rows and all(r["status"] == "N/A" for r in rows)
    # what a stdio audit knows without any answer: rules for HTTP servers do not apply; everything else is unseen
    for r in rows:
        expected = "does not apply" if "http" in r["applies_to"].split() else "not checked"
        assert r["evidence"].startswith(expected), r


@pytest.mark.slow  # a whole audit
def test_a_secret_on_stdout_before_any_answer_is_masked_too(project_root: Path, tmp_path: Path) -> None:
    """A server that prints its token as a banner and never answers: the preflight's own finding quotes stdout."""
    out = tmp_path / "audit.json"
    banner = "import os, sys, time; print('starting with token ' + os.environ['API_TOKEN'], flush=True); time.sleep(30)"
    run = run_cli(project_root, "audit", "-o", str(out), "--wait", "1", "--", sys.executable, "-c", banner, limit=60)
    assert "TRN-001 FAIL" in run.stdout and "<CANARY>" in out.read_text(), run.stdout
    assert "hb-canary" not in run.stdout + out.read_text()


@pytest.mark.slow  # a whole audit
def test_the_summary_never_prints_the_secret(project_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    run = run_cli(project_root, "audit", "-o", str(out), "--wait", "2", "--rule", "TRN-001", "--rule", "ERR-005", "--",
                  sys.executable, str(HOSTILE / "leaky.py"), limit=60)
    assert "secret canary came back" in run.stdout
    assert "hb-canary" not in run.stdout and "hb-canary" not in out.read_text(), run.stdout
    assert "tool calls: tools annotated readOnlyHint: true" in run.stdout and "the server's own claim" in run.stdout


def test_json_evidence_keeps_every_row_a_table_cell_is_cut() -> None:
    finding = Finding("FAIL", "many rows", tuple(f"row {i}" for i in range(40)), "x")
    assert evidence_text(finding, "json").count("\n") == 40
    table = evidence_text(finding, "csv")
    assert table.count("\n") == 13 and table.endswith("… 28 more row(s)")


ACTING = [sys.executable, str(QUIRKS / "acting_prompts.py")]
ACTING_RULES = frozenset({"ERR-015", "ERR-014", "OPS-003", "SEC-017", "SEC-018", "TOOL-005"})


@pytest.mark.slow  # a whole audit
def test_no_tool_calls_sends_nothing_that_runs_server_code(corpus, tmp_path: Path) -> None:
    """Like mcp-server-commands, whose run_command prompt ran ``/bin/sh -c undefined`` for ERR-015: under
    --no-tool-calls no prompts/get, resources/read or completion/complete is sent, and the rules that need one
    say so."""
    tripwire = tmp_path / "tripwire"
    options = AuditOptions(wait=2, tool_calls=False, rules=ACTING_RULES, roots=(str(tmp_path),))
    result = run_audit(corpus, [*ACTING, "--tripwire", str(tripwire)], options=options)
    verdicts = _verdicts(result)
    assert not tripwire.exists(), tripwire.read_text()
    for rule_id in ("ERR-015", "ERR-014", "SEC-017", "SEC-018"):
        status, na, summary = verdicts[rule_id]
        assert (status, na) == ("N/A", NOT_CHECKED) and summary.startswith("not checked: --no-tool-calls"), (rule_id, summary)
    assert verdicts["TOOL-005"][0] == "PASS"  # listings are still judged
    # the completions it advertises were not exercised: not known to work, so not a PASS either
    assert verdicts["OPS-003"][:2] == ("N/A", NOT_CHECKED) and "not exercised under --no-tool-calls" in verdicts["OPS-003"][2]


@pytest.mark.slow  # a whole audit
def test_the_default_guard_renders_no_prompt_that_runs_commands(corpus, tmp_path: Path) -> None:
    """Read-only tools only (the default): ERR-015 checks the template prompt and leaves run_command alone, unless
    the user names it."""
    tripwire = tmp_path / "tripwire"
    result = run_audit(corpus, [*ACTING, "--tripwire", str(tripwire)], options=AuditOptions(wait=2, rules=frozenset({"ERR-015"})))
    finding = next(f.finding for f in result.findings if f.rule.id == "ERR-015")
    assert finding.status == "PASS", finding
    assert any("run_command" in row and "not rendered" in row for row in finding.evidence), finding.evidence
    assert not tripwire.exists(), tripwire.read_text()
    named = AuditOptions(wait=2, rules=frozenset({"ERR-015"}), allow_tool_calls=frozenset({"run_command"}))
    run_audit(corpus, [*ACTING, "--tripwire", str(tripwire)], options=named)
    assert "prompts/get run_command" in tripwire.read_text()


@pytest.mark.slow  # a whole audit
def test_no_tool_calls_still_judges_the_stderr_the_server_wrote(corpus) -> None:
    """OPS-008 used to be N/A under --no-tool-calls (its probe tried a call and was stopped) although the server had
    already written free text to stderr, as mcp-server-commands does at start."""
    command = ["/bin/sh", "-c", f"echo 'INFO: verbose logging disabled' >&2; exec {sys.executable} {HOSTILE / 'tiny.py'}"]
    result = run_audit(corpus, command, options=AuditOptions(wait=2, tool_calls=False, rules=frozenset({"OPS-008"})))
    finding = next(f.finding for f in result.findings if f.rule.id == "OPS-008")
    assert (finding.status, finding.reason) == ("FAIL", "not_json"), finding
    assert any("INFO: verbose logging disabled" in row for row in finding.evidence), finding.evidence


def test_the_guard_refuses_every_acting_request_under_no_tool_calls() -> None:
    from mcp_handbook.audit.guard import BlockedToolCall, ToolCallGuard, acting_prompt
    guard = ToolCallGuard(allow=frozenset(), calls=False)
    for frame in (b'{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"x"}}',
                  b'{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a"}}',
                  b'{"jsonrpc":"2.0","id":3,"method":"completion/complete"', b"tools/call not even JSON"):
        with pytest.raises(BlockedToolCall):
            guard.check(frame)
    guard.check(b'{"jsonrpc":"2.0","id":4,"method":"prompts/list"}')  # listings still go through
    assert acting_prompt({"name": "run_command", "arguments": [{"name": "command", "required": True}]})
    assert acting_prompt({"name": "report", "arguments": [{"name": "sql"}]})
    assert not acting_prompt({"name": "greet", "description": "A greeting for someone.", "arguments": [{"name": "name"}]})


@pytest.mark.slow  # a whole audit
@pytest.mark.skipif(shutil.which("git", path="/usr/local/bin:/usr/bin:/bin") is None, reason="needs git on PATH")
def test_a_server_that_must_start_in_a_git_repository_gets_one_and_its_quick_child_is_seen(corpus) -> None:
    """Like mcp-server-git: it exits at start unless ``--repository`` is a git repository, and its tool starts
    ``git`` by name for a few milliseconds with the whole environment."""
    command = [sys.executable, str(QUIRKS / "sec_quick_child.py"), "--repository", "{workspace}", "--must-be-repository"]
    result = run_audit(corpus, command, options=AuditOptions(rules=frozenset({"SEC-003"}), wait=2))
    status, _, summary = _verdicts(result)["SEC-003"]
    assert status == "FAIL", summary


@pytest.mark.slow  # a whole audit
def test_code_tools_the_audit_may_not_call_leave_sec_009_not_checked_in_the_summary(corpus) -> None:
    command = [sys.executable, str(QUIRKS / "sec_env_readers.py")]
    result = run_audit(corpus, command, options=AuditOptions(rules=frozenset({"SEC-009"}), wait=2))
    status, na, summary = _verdicts(result)["SEC-009"]
    assert (status, na) == ("N/A", NOT_CHECKED), summary
    assert [f.rule.id for f in result.not_checked()] == ["SEC-009"]
    lines = summary_lines(result, outputs=[(Path("audit.md"), "md")], manual=0)
    banner = next((n, line) for n, line in enumerate(lines) if line.startswith("NOT CHECKED:"))
    assert banner[1].startswith("NOT CHECKED: 1 rule(s), 1 of them HIGH") and "SEC-009" in lines[banner[0] + 1], lines
    assert "--allow-tool-calls query run_code" in summary
    allowed = run_audit(corpus, command, options=AuditOptions(rules=frozenset({"SEC-009"}), wait=2,
                                                              allow_tool_calls=frozenset({"query", "run_code"})))
    assert _verdicts(allowed)["SEC-009"][0] == "FAIL", _verdicts(allowed)["SEC-009"]
