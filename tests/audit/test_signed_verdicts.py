"""Verdicts a careful human signs (issue 25): classes of false verdicts the hand checks of real servers found
(benchmarks/handchecks/), each pinned by a check that failed before its fix."""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from audit_helpers import fake_corpus

from mcp_handbook import load_corpus
from mcp_handbook.audit import sdk_baseline
from mcp_handbook.audit import run_audit
from mcp_handbook.audit.observed import Seen, secret_in_child, unadvertised_log_messages
from mcp_handbook.audit.powers import powers
from mcp_handbook.audit.plan import AuditOptions, AuditResult, RuleFinding
from mcp_handbook.audit.preflight import ServerFacts
from mcp_handbook.probes import PROBES
from mcp_handbook.probes.judging import judge_each_tool
from mcp_handbook.probes.registry import Probe
from mcp_handbook.probes.support import MAX_LISTED, Finding, Target, failed, listed, not_applicable, passed

STRING = {"type": "string"}
QUIRKS = Path(__file__).resolve().parent / "quirks"


@pytest.fixture
def run_probe(tmp_path: Path) -> Iterator:
    """``run_probe(probe, quirk, *args)``: the probe's finding against ``quirks/QUIRK.py``, the canary masked."""
    targets: list[Target] = []

    def run(name: str, quirk: str, *args: str, allow: frozenset[str] | None = frozenset()) -> Finding:
        canary = f"hb-canary-{secrets.token_hex(8)}"
        workspace = tmp_path / f"ws{len(targets)}"
        workspace.mkdir()
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
               "HB_CANARY": canary, "API_TOKEN": canary}
        target = Target(argv=[sys.executable, str(QUIRKS / f"{quirk}.py"), *args], workspace=workspace, env=env,
                        canary=canary, allow_tool_calls=allow, timeout=3.0)
        targets.append(target)
        finding = PROBES[name].run(target)
        assert canary not in repr(finding), "evidence must mask the canary"
        return finding

    yield run
    for target in targets:
        target.stop_all()


def _tool(name: str, description: str = "", **props) -> dict:
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": props}}


# -- counts and the rows listed agree (server-everything: "13 of 13" beside 12 tools) ----------------------------

def test_a_finding_lists_every_row_it_counts_up_to_the_bound_and_says_the_rest() -> None:
    assert listed([f"r{i}" for i in range(13)]) == [f"r{i}" for i in range(13)]
    many = listed([f"r{i}" for i in range(MAX_LISTED + 7)])
    assert len(many) == MAX_LISTED + 1 and many[-1] == "… and 7 more"


def test_judging_every_tool_lists_each_tool_it_counts(tmp_path) -> None:
    tools = [_tool(f"tool-{i}") for i in range(13)]
    target = Target(argv=[], workspace=tmp_path, env={}, canary="c")
    target.listing = tools
    finding = judge_each_tool(target, lambda t: [("bad", f"{t['name']}: bad")], reasons={"bad": "x"}, kept="k",
                              broken="are bad")
    assert finding.summary == "13 of 13 tool(s) are bad"
    assert [row.split(":")[0] for row in finding.evidence] == [f"tool-{i}" for i in range(13)], "tool-12 was dropped"


# -- the powers line (server-everything: get-env not named; a data: parameter is not a fetcher) ----------------

def test_a_tool_that_returns_the_environment_is_named_among_the_powers() -> None:
    found = dict(powers([
        _tool("get-env", "Returns all environment variables, helpful for debugging MCP server configuration"),
        _tool("print_environ"),
        _tool("list_environments", "Lists the deployment environments (staging, production)."),
        _tool("get-sum", "Returns the sum of two numbers", a={"type": "number"}),
    ]))
    assert found["reads the process environment (where its secrets are)"] == ["get-env (its name)", "print_environ (its name)"]


def test_a_data_uri_parameter_is_not_a_url_fetcher_but_a_url_or_data_uri_one_is() -> None:
    inline = _tool("upload_image", data={**STRING, "format": "uri", "description": "The image as a data: URI (base64)"})
    plain = _tool("store", data={**STRING, "description": "The bytes to store"})
    gzip = _tool("gzip-file-as-resource", data={**STRING, "format": "uri",
                                                "description": "URL or data URI of the file content to compress"})
    found = dict(powers([inline, plain, gzip]))
    assert found["fetches URLs it is given"] == ["gzip-file-as-resource (parameter 'data')"]


# -- OPS-003: log notifications without the logging capability (mcp-server-duckdb, Python SDK 1.30) -------------

def test_log_notifications_after_a_malformed_line_without_logging_advertised_fail(run_probe) -> None:
    finding = run_probe("advertise_capabilities", "sdk130_logs")
    assert (finding.status, finding.reason) == ("FAIL", "served_not_advertised"), finding
    assert "Internal Server Error" in " ".join(finding.evidence), "the evidence names the notification seen"


def test_a_server_that_sends_no_log_notification_still_passes(run_probe) -> None:
    assert run_probe("advertise_capabilities", "sdk130_logs", "--quiet").status == "PASS"


def _session(*messages: dict) -> SimpleNamespace:
    return SimpleNamespace(stdout=[SimpleNamespace(value=m) for m in messages])


LOG = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "data": "Internal Server Error"}}


def test_a_log_notification_any_probe_of_the_audit_saw_fails_ops_003() -> None:
    facts = ServerFacts(answered=True, capabilities={"tools": {}})
    own = passed("4 capability(ies) advertised, each an object that works; nothing served unadvertised")
    seen = Seen(facts, {}, {"preflight": [_session()], "malformed_message_errors": [_session({"id": 1}, LOG)]})
    finding = unadvertised_log_messages(own, seen)
    assert (finding.status, finding.reason) == ("FAIL", "served_not_advertised")
    assert "malformed_message_errors" in finding.summary and "Internal Server Error" in finding.evidence[0]
    assert any(own.summary in row for row in finding.evidence), "the probe's own verdict is kept below"
    advertised = Seen(ServerFacts(answered=True, capabilities={"logging": {}}), {}, seen.sessions)
    assert unadvertised_log_messages(own, advertised) is own
    assert unadvertised_log_messages(own, Seen(facts, {}, {"x": [_session({"id": 1, "result": {}})]})) is own


# -- SEC-009: the secret handed to a child, seen by SEC-003's probe of the same audit (mcp-server-git) -----------

CHILD_ROW = ("child git (pid 41, `git status`, seen by its PATH stand-in), started during git_status({}): the server's "
             "secret in its environment (API_TOKEN=<CANARY>)")


@pytest.mark.parametrize("own", [passed("8 call(s): the secret appears nowhere"), not_applicable("not checked: x")])
def test_sec_009_cites_the_canary_sec_003_saw_in_a_child(own: Finding) -> None:
    child = failed("canary_reached_child", "the server's secret reached 6 child process(es) it started", CHILD_ROW)
    finding = secret_in_child(own, Seen(ServerFacts(answered=True), {"child_env_allowlist": child}, {}))
    assert (finding.status, finding.reason) == ("FAIL", "canary_reached_child"), finding
    assert "child git started with the canary, see SEC-003" in finding.summary
    assert CHILD_ROW in finding.evidence


def test_sec_009_is_left_alone_when_sec_003_saw_no_secret_in_a_child() -> None:
    own = passed("the secret appears nowhere")
    inherited = failed("server_env_inherited", "variables of the server's own environment reached 1 child")
    for verdicts in ({}, {"child_env_allowlist": inherited}, {"child_env_allowlist": passed("clean")}):
        assert secret_in_child(own, Seen(ServerFacts(answered=True), verdicts, {})) is own


# -- SEC-008: a request that fails validation is logged with part of its secret (Python SDK 1.30) -----------------

@pytest.mark.parametrize("args", [(), ("--whole",)])
def test_part_of_a_secret_in_a_refused_request_logged_to_stderr_fails(run_probe, args: tuple[str, ...]) -> None:
    finding = run_probe("redact_secrets_in_logs", "sdk130_logs", *args)
    assert (finding.status, finding.reason) == ("FAIL", "secret_in_log"), finding
    shown = " ".join(finding.evidence)
    assert ("<SECRET>" if args else "CHARACTERS OF THE SECRET>") in shown and "ghp_" not in shown, "no part is shown"


def test_no_tool_call_is_needed_to_see_it(run_probe) -> None:
    finding = run_probe("redact_secrets_in_logs", "sdk130_logs", allow=frozenset({"none-of-its-tools"}))
    assert (finding.status, finding.reason) == ("FAIL", "secret_in_log"), finding


def test_a_server_that_logs_nothing_of_it_is_not_failed(run_probe) -> None:
    finding = run_probe("redact_secrets_in_logs", "sdk130_logs", "--quiet")
    assert finding.status == "PASS", finding
    assert any(row.startswith("sent, failing validation: tools/list with an object") for row in finding.evidence)


# -- SDK attribution compares what was seen, not the reason alone (mcp-server-duckdb's own prompts/get) ----------

RENDERED = 'a prompt that does not exist got {"jsonrpc":"2.0","id":3,"result":{"description":"No","messages":[]}}'
SDK_ERROR = ('a prompt that does not exist got {"jsonrpc":"2.0","id":3,"error":{"code":0,"message":"Unknown prompt: '
             'hb-no-such-prompt"}}')
OTHER_ID = ('a prompt that does not exist got {"jsonrpc":"2.0","id":7,"error":{"code":0,"message":"Unknown prompt: '
            'nope"}}')


def test_behaviour_keeps_what_the_server_did_and_drops_ids_counts_and_wording() -> None:
    assert sdk_baseline.behaviour(SDK_ERROR) == sdk_baseline.behaviour(OTHER_ID)
    assert sdk_baseline.behaviour(RENDERED) != sdk_baseline.behaviour(SDK_ERROR), "a result is not an error"
    assert sdk_baseline.behaviour(SDK_ERROR) != sdk_baseline.behaviour(SDK_ERROR.replace('"code":0', '"code":-32603'))
    assert sdk_baseline.behaviour("2 inherited descriptor(s): fd 85 -> pipe:[1253781]") == \
        sdk_baseline.behaviour("2 inherited descriptor(s): fd 90 -> pipe:[1621759]")


@pytest.mark.parametrize("summary, inherited", [(RENDERED, False), (OTHER_ID, True)])
def test_a_fail_is_inherited_only_when_the_minimal_server_did_the_same(project_root: Path, monkeypatch, summary: str,
                                                                       inherited: bool) -> None:
    corpus = load_corpus(project_root)
    sdk = sdk_baseline.Sdk("python", "the official Python SDK (mcp)", "1.30.0", sys.executable)
    monkeypatch.setattr(sdk_baseline, "detect", lambda argv: sdk)
    monkeypatch.setattr(sdk_baseline, "baseline_verdicts", lambda *a, **k: ({"ERR-015": {
        "status": "FAIL", "reason": "unknown_prompt_not_refused", "summary": SDK_ERROR}}, "", 0))
    rule = corpus.rule("ERR-015")
    found = RuleFinding(rule, rule.probe, failed("unknown_prompt_not_refused", summary), 0.1)
    result = AuditResult(("/bin/server",), ServerFacts(answered=True), (found,), (), 1.0, AuditOptions())
    attributed = sdk_baseline.attribute(corpus, result, audit=run_audit)
    assert [i.rule_id for i in attributed.inherited] == (["ERR-015"] if inherited else [])


@pytest.mark.parametrize("summary, options, kept", [
    ("not checked: no callable tool fails on purpose", AuditOptions(), True),
    ("no verdict: the probe did not finish within 20.0 s; its server processes were killed", AuditOptions(), False),
    ("not checked: the probe calls tools, and the audit ran with --no-tool-calls", AuditOptions(tool_calls=False), False),
])
def test_the_minimal_servers_settled_not_checked_verdicts_are_cached(project_root: Path, monkeypatch, tmp_path: Path,
                                                                       summary: str, options: AuditOptions,
                                                                       kept: bool) -> None:
    """A rule the minimal server's probe could not check is audited once per SDK version, not on every audit."""
    from mcp_handbook.audit.plan import NOT_CHECKED

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    corpus = load_corpus(project_root)
    sdk = sdk_baseline.Sdk("python", "the official Python SDK (mcp)", "0.0-test", sys.executable)
    rule = corpus.rule("ERR-005")
    audits = []

    def audit(corpus, argv, *, options, probes):
        audits.append(argv)
        found = RuleFinding(rule, rule.probe, not_applicable(summary), 0.1, na=NOT_CHECKED)
        return AuditResult(tuple(argv), ServerFacts(answered=True), (found,), (), 1.0, options)

    result = AuditResult(("/bin/server",), ServerFacts(answered=True), (), (), 1.0, options)
    for _ in range(2):
        verdicts, _note, _spawned = sdk_baseline.baseline_verdicts(corpus, sdk, frozenset({"ERR-005"}), result,
                                                                   audit=audit)
    assert len(audits) == (1 if kept else 2), audits
    assert ("ERR-005" in verdicts) == kept and (not kept or verdicts["ERR-005"]["status"] == "N/A")


# -- the engine hands every probe's sessions and verdicts to the checks of observed.py ------------------------------

def _malformed_line(target: Target) -> Finding:
    """A stand-in for ERR-007's probe: one line that does not parse, then a ping."""
    session = target.start()
    session.initialize(timeout=target.timeout)
    session.send_raw(b'{"jsonrpc": "2.0", "id": 41, "method": "pi\n')
    session.request("ping", {}, timeout=target.timeout)
    session.settle(1.0)
    return failed("malformed_unanswered", "a line cut short got no answer")


def test_the_audit_fails_ops_003_and_sec_009_on_what_other_probes_saw(tmp_path: Path) -> None:
    fakes = {
        "advertise_capabilities": lambda t: passed("nothing served unadvertised (its own session saw no log message)"),
        "malformed_message_errors": _malformed_line,
        "child_env_allowlist": lambda t: failed("canary_reached_child", "the secret reached 1 child", CHILD_ROW),
        "no_secret_in_output": lambda t: passed("3 call(s): the secret appears nowhere"),
    }
    corpus = fake_corpus(tmp_path, {"OPS-003": "advertise_capabilities", "ERR-007": "malformed_message_errors",
                                    "SEC-003": "child_env_allowlist", "SEC-009": "no_secret_in_output"})
    result = run_audit(corpus, [sys.executable, str(QUIRKS / "sdk130_logs.py")],
                       options=AuditOptions(timeout=30, probe_timeout=5, wait=1.0, jobs=2, sdk_baseline=False),
                       probes={name: Probe(name, fn, name) for name, fn in fakes.items()})
    verdicts = {f.rule.id: f.finding for f in result.findings}
    ops003 = verdicts["OPS-003"]
    assert (ops003.status, ops003.reason) == ("FAIL", "served_not_advertised"), ops003
    assert "malformed_message_errors" in ops003.summary and "Internal Server Error" in ops003.evidence[0]
    assert (verdicts["SEC-009"].status, verdicts["SEC-009"].reason) == ("FAIL", "canary_reached_child")
