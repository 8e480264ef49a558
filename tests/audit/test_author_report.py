"""What an author reads after an audit: what the server can do, what to fix first, each FAIL with its fix line and
the rule's published page, and the SDK's defaults told apart from what the author wrote (issue 25)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.audit import run_audit, sdk_baseline
from mcp_handbook.audit.plan import DOES_NOT_APPLY, AuditOptions, AuditResult, Inherited, RuleFinding
from mcp_handbook.audit.powers import powers, powers_line
from mcp_handbook.audit.preflight import ServerFacts
from mcp_handbook.audit.sheet import audit_rows, write_audit_worksheet
from mcp_handbook.audit.summary import first_to_fix, summary_lines
from mcp_handbook.fields import FIX_LIMIT
from mcp_handbook.lint import fix_lines
from mcp_handbook.probes.support import failed, passed
from mcp_handbook.report.read_text import read_markdown

READ_ONLY = {"readOnlyHint": True}
TOOLS = [
    {"name": "run_command", "description": "Run a shell command.", "annotations": {"readOnlyHint": False},
     "inputSchema": {"type": "object", "properties": {"command": {"type": "string"}}}},
    {"name": "query", "description": "Execute a SELECT query on the database.", "annotations": READ_ONLY,
     "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}},
    {"name": "read_file", "annotations": READ_ONLY, "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "fetch", "annotations": READ_ONLY, "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}},
    {"name": "get_time", "description": "Tell the time.", "annotations": READ_ONLY,
     "inputSchema": {"type": "object", "properties": {"timezone": {"type": "string"}}}},
]


@pytest.fixture(scope="module")
def corpus(project_root: Path):
    return load_corpus(project_root)


def _result(corpus, verdicts: dict, *, tools=TOOLS, inherited=(), sdk="") -> AuditResult:
    findings = tuple(RuleFinding(corpus.rule(rid), corpus.rule(rid).probe, f, 0.1) for rid, f in verdicts.items())
    facts = ServerFacts(answered=True, tools=list(tools), tools_listed=True, server_info={"name": "acme"})
    return AuditResult(("/bin/acme",), facts, findings, (), 1.0, AuditOptions(), sdk=sdk, inherited=tuple(inherited))


def test_every_automated_rule_says_what_to_fix_in_one_short_line(corpus) -> None:
    automated = [r for r in corpus.rules if r.check == "automated"]
    assert automated and all(r.fix and len(r.fix) <= FIX_LIMIT and "\n" not in r.fix for r in automated)
    assert not list(fix_lines(corpus))
    bare = replace(corpus, rules=(replace(automated[0], fix=""), *corpus.rules[1:]))
    found = list(fix_lines(bare))
    assert [(d.code, d.location.path) for d in found] == [("HB065", automated[0].path)]


def test_powers_are_read_from_the_tools_with_the_probes_recognisers() -> None:
    found = dict(powers(TOOLS))
    assert found["runs commands"] == ["run_command (parameter 'command')"]
    assert found["evaluates code or SQL"] == ["query (parameter 'query')"]
    assert found["reads or writes the file-system paths it is given"] == ["read_file (parameter 'path')"]
    assert found["fetches URLs it is given"] == ["fetch (parameter 'url')"]
    assert found["changes state (writes, deletes, sends)"] == ["run_command (annotated not read-only)"]
    assert powers_line(TOOLS[-1:], True).startswith("can do: nothing dangerous")
    assert "unknown" in powers_line([], False)


def test_the_summary_opens_with_powers_and_the_authors_worst_fail_with_its_fix_and_page(corpus, tmp_path: Path) -> None:
    result = _result(corpus, {
        "ERR-007": failed("mishandled", "18 malformed line(s) mishandled"),
        "SEC-002": failed("shell_used", "the shell ran it"),
        "TOOL-008": failed("no_title", "2 tool(s) lack a title"),
        "TRN-001": passed("only JSON-RPC"),
    }, inherited=[Inherited("ERR-007", "the official Python SDK (mcp) 2.3.0", "same", "x")], sdk="the official Python SDK (mcp) 2.3.0")
    lines = summary_lines(result, outputs=[(tmp_path / "a.md", "md")], manual=0, corpus=corpus)
    assert lines[0].startswith("can do (by its tools'") and "runs commands: run_command" in lines[0]
    sec002 = corpus.rule("SEC-002")
    assert lines[1] == f"fix first: SEC-002 (high) {sec002.fix} · {corpus.page_url(sec002)}"
    text = "\n".join(lines)
    assert ".md:1" not in text and corpus.page_url(corpus.rule("TOOL-008")) in text
    inherited_at = text.index("inherited from the official Python SDK (mcp) 2.3.0")
    assert text.index("ERR-007 FAIL") > inherited_at > text.index("TOOL-008 FAIL"), "the SDK's FAIL is listed apart, after the author's"
    assert result.exit_code == 1, "an inherited FAIL still counts for the gate (SEC-002 is the author's anyway)"


def test_fix_first_skips_the_sdks_defaults_and_says_when_only_they_fail(corpus) -> None:
    sdk = "the official TypeScript SDK (@modelcontextprotocol/sdk) 1.32.2"
    result = _result(corpus, {"ERR-007": failed("mishandled", "x"), "TOOL-008": failed("no_title", "y")},
                     inherited=[Inherited("ERR-007", sdk, "same")], sdk=sdk)
    assert first_to_fix(result, corpus).startswith("fix first: TOOL-008 (low)")
    only_sdk = _result(corpus, {"ERR-007": failed("mishandled", "x")}, inherited=[Inherited("ERR-007", sdk, "same")], sdk=sdk)
    assert first_to_fix(only_sdk, corpus) == f"fix first: nothing the author wrote fails; 1 FAIL(s) are {sdk}'s defaults (below)"


def test_worksheets_carry_the_fix_and_the_page_and_the_markdown_still_reads_back(corpus, tmp_path: Path) -> None:
    result = _result(corpus, {"SEC-002": failed("shell_used", "the shell | ran\nit"), "TRN-001": passed("ok")})
    rows = {r["id"]: r for r in audit_rows(corpus, result, "csv")}
    assert rows["SEC-002"]["evidence"].startswith(f"fix: {corpus.rule('SEC-002').fix}\n")
    assert rows["TRN-001"]["notes"].startswith(f"rule: {corpus.page_url(corpus.rule('TRN-001'))}\n")
    for fmt in ("csv", "json"):
        write_audit_worksheet(corpus, result, fmt=fmt, path=tmp_path / f"a.{fmt}")
    assert "content/rules/" not in (tmp_path / "a.csv").read_text()
    assert json.loads((tmp_path / "a.json").read_text())["items"]
    out = tmp_path / "a.md"
    write_audit_worksheet(corpus, result, fmt="md", path=out)
    text = out.read_text()
    assert text.index("## What this server can do") < text.index("| id |")
    assert "fix first: SEC-002 (high)" in text and "1. **SEC-002** (high) the shell \\| ran it" in text
    filled, problems = read_markdown(out.read_bytes(), "a.md")
    assert filled is not None and not problems and len(filled.entries) == len(corpus.rules)


def _python_server(folder: Path, imports_sdk: bool) -> Path:
    script = folder / "server.py"
    script.write_text(("from mcp.server import Server\n" if imports_sdk else "import json\n") + "print('hi')\n")
    return script


def test_the_python_sdk_is_detected_only_when_the_servers_own_code_imports_it(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    found = sdk_baseline.detect([sys.executable, str(_python_server(tmp_path, True))])
    assert found is not None and found.key == "python" and found.runner == sys.executable
    other = tmp_path / "other"
    other.mkdir()
    assert sdk_baseline.detect([sys.executable, str(_python_server(other, False))]) is None
    assert sdk_baseline.detect(["/bin/true"]) is None


TRAMPOLINE = "#!/bin/sh\n'''exec' \"$(dirname -- \"$(realpath -- \"$0\")\")\"/'python' \"$0\" \"$@\"\n' '''\n"
"""The head of a console script uv and pip write when an environment's path cannot go on a ``#!`` line."""


def test_a_console_script_with_a_sh_trampoline_is_read_through_to_its_python(tmp_path: Path) -> None:
    """The SDK is still found through the ``python`` beside the script (every server ``uvx`` runs is one)."""
    pytest.importorskip("mcp")
    env_bin = tmp_path / "env" / "bin"
    env_bin.mkdir(parents=True)
    (env_bin / "python").symlink_to(sys.executable)
    script = env_bin / "acme-server"
    script.write_text(TRAMPOLINE + "from mcp.server import Server\n")
    found = sdk_baseline.detect([str(script)])
    assert found is not None and found.key == "python" and found.runner == str(env_bin / "python")
    script.write_text("#!/bin/sh\nexec python3 -m acme\n")
    assert sdk_baseline.detect([str(script)]) is None, "any other shell script is not guessed at"


def test_the_typescript_sdk_is_the_one_node_resolves_from_the_entry_script(tmp_path: Path) -> None:
    pkg = tmp_path / "node_modules" / "acme-server"
    (pkg / "dist").mkdir(parents=True)
    entry = pkg / "dist" / "index.js"
    entry.write_text("#!/usr/bin/env node\n")
    sdk = tmp_path / "node_modules" / "@modelcontextprotocol" / "sdk"
    sdk.mkdir(parents=True)
    (sdk / "package.json").write_text(json.dumps({"name": "@modelcontextprotocol/sdk", "version": "1.32.2"}))
    (pkg / "package.json").write_text(json.dumps({"name": "acme-server", "dependencies": {"zod": "3"}}))
    assert sdk_baseline.detect(["/usr/bin/node", str(entry)]) is None, "a package that does not depend on the SDK"
    (pkg / "package.json").write_text(json.dumps({"name": "acme-server", "dependencies": {"@modelcontextprotocol/sdk": "^1"}}))
    found = sdk_baseline.detect(["/usr/bin/node", str(entry)])
    assert found is not None and (found.key, found.version, found.home) == ("typescript", "1.32.2", str(sdk))


def test_a_fail_the_minimal_server_shares_for_the_same_reason_is_inherited(corpus, tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("mcp")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    script = _python_server(tmp_path, True)
    sdk = sdk_baseline.detect([sys.executable, str(script)])
    cached = {"TRN-002": {"status": "FAIL", "reason": "oversize_processed", "summary": "a 4,194,304-byte line read whole"},
              "ERR-007": {"status": "FAIL", "reason": "other_reason", "summary": "other"},
              "TOOL-008": {"status": "FAIL", "reason": "no_title", "summary": "the echo tool has no title either"}}
    sdk_baseline._save(sdk_baseline._cache_file(sdk, corpus), sdk, cached)  # the baseline audit already ran
    result = replace(_result(corpus, {
        "TRN-002": failed("oversize_processed", "a 16,777,216-byte line read whole"), "ERR-007": failed("mishandled", "x"),
        "TOOL-008": failed("no_title", "y")}), command=(sys.executable, str(script)))
    attributed = sdk_baseline.attribute(corpus, result, audit=run_audit)
    assert attributed.sdk == sdk.describe() and [i.rule_id for i in attributed.inherited] == ["TRN-002"]
    trn002 = next(f for f in attributed.findings if f.rule.id == "TRN-002")
    assert trn002.finding.status == "N/A" and trn002.na == DOES_NOT_APPLY, "TRN-002's deviation covers an SDK's reader"
    assert "When to deviate" in trn002.finding.summary and "16,777,216-byte line read whole" in trn002.finding.summary
    assert [f.rule.id for f in attributed.own_failures()] == ["ERR-007", "TOOL-008"], \
        "a different reason is the author's; a tool's definition is the author's even when the minimal server's fails too"
    off = replace(result, options=AuditOptions(sdk_baseline=False))
    assert sdk_baseline.attribute(corpus, off, audit=run_audit) is off


@pytest.mark.slow  # starts the minimal server on the installed Python SDK
def test_the_python_baseline_server_answers_the_auditor(corpus) -> None:
    pytest.importorskip("mcp")
    seen = run_audit(corpus, [sys.executable, str(sdk_baseline.BASELINES / "python_sdk.py")],
                     options=AuditOptions(rules=frozenset({"TRN-001", "TOOL-013"}), sdk_baseline=False))
    assert seen.facts.answered and [t["name"] for t in seen.facts.tools] == ["echo"]
    assert {f.rule.id: f.finding.status for f in seen.findings} == {"TRN-001": "PASS", "TOOL-013": "PASS"}


@pytest.mark.slow  # starts the minimal server on the installed Python SDK
def test_the_python_baseline_shows_the_sdks_lax_coercion(corpus) -> None:
    """ERR-004: pydantic coerces "1" and true for an integer in any server built on the SDK (excel-mcp-server, mcp-server-
    git); the minimal server had only a string parameter, so those FAILs were laid at the author's door."""
    pytest.importorskip("mcp")
    from mcp_handbook.audit import run_audit

    seen = run_audit(corpus, [sys.executable, str(sdk_baseline.BASELINES / "python_sdk.py")],
                     options=AuditOptions(rules=frozenset({"ERR-004"}), sdk_baseline=False))
    finding = next(f.finding for f in seen.findings if f.rule.id == "ERR-004")
    assert finding.status == "FAIL" and "type confusions a lax validator coerced" in finding.summary, finding


@pytest.mark.parametrize(("reason", "allowed"), [("nonzero_exit", True), ("no_exit", False)])
def test_the_default_signal_deviation_needs_a_server_that_a_signal_ends(corpus, reason: str, allowed: bool) -> None:
    """OPS-001 allows a quick read-only server Python's default signal actions; mcp-server-time was still running
    10 s after SIGINT, which no default action does, and was let off before."""
    read_only = [{"name": "now", "description": "The time.", "annotations": {"readOnlyHint": True},
                  "inputSchema": {"type": "object", "properties": {}}}]
    result = _result(corpus, {"OPS-002": passed("exits on EOF"), "OPS-001": failed(reason, "signals")}, tools=read_only)
    why = sdk_baseline.DEVIATIONS["OPS-001"](result, None)
    assert bool(why) is allowed, why
