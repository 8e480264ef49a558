"""``mcp-handbook audit --url``: a running Streamable HTTP server is audited with the probes that work over HTTP.

The reference server started with ``--http`` passes every such probe; a small fixture server that accepts any
``Origin`` fails the Origin rule; an SDK-built server is audited to the end. Bad ``--url`` invocations are refused
before anything is sent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from audit_helpers import QUIRKS, run_cli, serving_http
from mcp_handbook import load_corpus
from mcp_handbook.audit.applies import does_not_apply
from mcp_handbook.audit.engine import STDIO_ONLY
from mcp_handbook.audit.preflight import ServerFacts
from mcp_handbook.cli import main
from mcp_handbook.probes import PROBES, Target
from mcp_handbook.proving.verify import minimal_env

ANY_ORIGIN = [sys.executable, str(QUIRKS / "http_any_origin.py")]
HTTP_RULES = ("TRN-012", "TRN-013", "TRN-014")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--url", "http://192.0.2.10:8000/mcp"), "192.0.2.10 is not a loopback address"),
        (("--url", "http://mcp.example.com/mcp"), "pass --allow-remote"),
        (("--url", "ftp://127.0.0.1/mcp"), "is not an http:// or https:// URL"),
        (("--url", "http://127.0.0.1:99999/mcp"), "has a port that is not a number"),
        (("--url", "http://127.0.0.1:8000/mcp", "--header", "Authorization Bearer x"), "write it as 'Name: value'"),
        (("--header", "Authorization: Bearer x", "--", sys.executable), "only with --url"),
        (("--url", "http://127.0.0.1:8000/mcp", "--", sys.executable), "either --url or a server command"),
    ],
    ids=["remote-address", "remote-name", "not-http", "bad-port", "bad-header", "header-without-url", "url-and-command"],
)
def test_a_bad_url_invocation_is_refused_before_anything_is_sent(
    args, expected: str, project_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["--root", str(project_root), "audit", "-o", str(tmp_path / "a.md"), *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert expected in err
    assert list(tmp_path.iterdir()) == []


def test_over_stdio_the_http_rules_do_not_apply_and_over_http_the_stdio_rules_do_not(project_root: Path) -> None:
    rules = {r.id: r for r in load_corpus(project_root).rules}
    assert does_not_apply(rules["TRN-012"], ServerFacts(answered=True)).endswith("the server was audited over stdio")
    assert does_not_apply(rules["TRN-004"], ServerFacts(answered=True, transport="http")).endswith(
        "the server is audited over HTTP")
    assert does_not_apply(rules["TRN-012"], ServerFacts(answered=True, transport="http")) is None


def _probe(name: str, argv: list[str], tmp_path: Path):
    target = Target(argv=argv, workspace=tmp_path, env=minimal_env(home=tmp_path), canary="hb-canary-x", timeout=5.0,
                    transport="http")
    try:
        return PROBES[name].run(target)
    finally:
        target.stop_all()


def test_a_server_that_accepts_any_origin_fails_the_origin_probe(tmp_path: Path) -> None:
    served = _probe("http_refuse_foreign_origin", ANY_ORIGIN, tmp_path)
    assert (served.status, served.reason) == ("FAIL", "foreign_origin_served"), served
    assert "POST /mcp initialize (Origin: http://attacker.example) -> HTTP 200" in served.evidence
    wrong_status = _probe("http_refuse_foreign_origin", [*ANY_ORIGIN, "--mode", "wrong-status"], tmp_path)
    assert (wrong_status.status, wrong_status.reason) == ("FAIL", "foreign_origin_not_403"), wrong_status
    assert "HTTP 400" in wrong_status.summary


def test_the_same_server_passes_the_host_and_session_id_probes(tmp_path: Path) -> None:
    # it checks Host and hands out random session ids: the other HTTP probes pass on it, so they judge what they name
    assert _probe("http_refuse_foreign_host", ANY_ORIGIN, tmp_path).status == "PASS"
    assert _probe("http_session_ids_unguessable", ANY_ORIGIN, tmp_path).status == "PASS"


def test_by_url_where_the_server_listens_is_not_checked_when_no_socket_here_shows_it(tmp_path: Path) -> None:
    # an audit by URL has no process to inspect: with no listener on the port in this machine's tables (nothing
    # listens on port 9 here), the probe says so, and starts nothing
    target = Target(argv=[sys.executable, "-c", "raise SystemExit(9)"], workspace=tmp_path, env=minimal_env(home=tmp_path),
                    canary="hb-canary-x", timeout=5.0, transport="http", url="http://127.0.0.1:9/mcp")
    finding = PROBES["http_listen_on_loopback"].run(target)
    assert finding.status == "N/A", finding
    assert finding.summary.startswith("not checked: the audit cannot see which address the server listens on; "
                                      "run `ss -ltnp` on its host (")
    assert target.sessions == []


def _items(path: Path) -> dict[str, dict]:
    return {item["id"]: item for item in json.loads(path.read_text())["items"]}


BY_URL_NOT_PROVABLE = {
    "SEC-009": "no canary can be planted: an answer holding a process environment is a FAIL, nothing else a PASS",
    "SEC-020": "a refusal cannot be told from a listener beyond the server's reach",
    "SEC-022": "HB_FETCH_ALLOW cannot be set in a server started by someone else",
}
"""Rules whose probes run by URL and can FAIL there, but whose PASS needs what only a server the auditor started
gives: a planted secret, a shared network, an allow-list in its environment."""


@pytest.mark.slow  # a whole audit by URL
@pytest.mark.parametrize("era", ["auto", "2026-07-28"])
def test_audit_url_of_the_reference_server_passes_every_probe_that_works_over_http(project_root: Path,
                                                                                    tmp_path: Path, era: str) -> None:
    out = tmp_path / "audit.json"
    argv = [sys.executable, "-m", "reference_server", "--workspace", str(tmp_path), "--http", "127.0.0.1:0"]
    with serving_http(argv, cwd=tmp_path) as url:
        # --root names the folder it serves: ERR-014's probe plants a file there, so resources/list names one
        run = run_cli(project_root, "audit", "--url", url, "--root", str(tmp_path), "--era", era, "-o", str(out), limit=120)
    assert run.code == 0, run.text
    assert "Traceback" not in run.text
    assert f"  transport: Streamable HTTP at {url}; answered: 2025-11-25 (initialize), 2026-07-28 (server/discover)" \
        in run.stdout
    items = _items(out)
    ran = 0
    for rule in load_corpus(project_root).rules:
        if rule.check != "automated":
            continue
        item = items[rule.id]
        over_http = PROBES[rule.probe].over_http
        if rule.probe == "http_listen_on_loopback":  # by URL, read from this machine's socket tables: 127.0.0.1 only
            assert item["status"] == "Pass", (rule.id, item["evidence"])
        elif "stdio" in rule.conditions or "pages-lists" in rule.conditions:
            assert item["evidence"].startswith("does not apply: "), (rule.id, item["evidence"])
        elif rule.id in BY_URL_NOT_PROVABLE:
            ran += 1  # it runs, but what would prove a PASS needs the server's process or its network namespace
            assert item["status"] == "N/A" and item["evidence"].startswith("not checked: "), (rule.id, item["evidence"])
            assert not item["evidence"].startswith(STDIO_ONLY[:40]), (rule.id, item["evidence"])
        elif "http" in rule.conditions or over_http:
            ran += 1  # a probe that speaks only JSON-RPC runs over HTTP as over stdio, in the era asked for
            assert item["status"] == "Pass" or item["evidence"].startswith("does not apply: "), (rule.id, item["evidence"])
        else:
            assert item["evidence"].startswith("not checked: stdio-only probe"), (rule.id, item["evidence"])
    assert ran >= 30, ran


@pytest.mark.slow  # a whole audit by URL
def test_audit_url_of_a_server_that_accepts_any_origin_fails_the_origin_rule(project_root: Path,
                                                                              tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    with serving_http(ANY_ORIGIN, cwd=tmp_path) as url:
        run = run_cli(project_root, "audit", "--url", url, "-o", str(out), limit=120)
    assert run.code == 1, run.text
    assert "TRN-012 FAIL (high, spec violation" in run.stdout, run.stdout
    items = _items(out)
    assert items["TRN-012"]["status"] == "Fail"
    assert (items["TRN-013"]["status"], items["TRN-014"]["status"]) == ("Pass", "Pass")
    assert "answered: 2025-11-25 (initialize)" in run.stdout and "server/discover" not in run.stdout


@pytest.mark.slow  # the SDK takes over a second to import
def test_audit_url_of_an_sdk_built_server_runs_to_the_end(project_root: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp.server.mcpserver")
    pytest.importorskip("uvicorn")
    out = tmp_path / "audit.json"
    with serving_http([sys.executable, str(QUIRKS / "sdk_http_server.py")], cwd=tmp_path) as url:
        run = run_cli(project_root, "audit", "--url", url, "-o", str(out), limit=120)
    assert run.code == 0, run.text
    assert "sdk-http-echo 0.1.0" in run.stdout
    items = _items(out)
    # checked by hand with curl (issue 16's report): 403 for each foreign Origin, 421 for each foreign Host,
    # session ids of 32 hex characters (uuid4().hex), different every time
    assert {rule_id: items[rule_id]["status"] for rule_id in HTTP_RULES} == dict.fromkeys(HTTP_RULES, "Pass")
