"""An audit by URL judges what it can see from here: the sockets on this machine, the listings, one shared session.

The fixture server (``quirks/http_bind_quirks.py``) listens on 127.0.0.1 or on every interface of this machine, on a
free port, and is only ever spoken to over 127.0.0.1; its tool asks for an ``api_key`` and it answers a resource that
does not exist with an empty result. Every server a test starts is stopped by its process group.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from audit_helpers import QUIRKS, run_cli, serving_http
from mcp_handbook import load_corpus
from mcp_handbook.audit.engine import STDIO_ONLY
from mcp_handbook.audit.plan import DOES_NOT_APPLY, NOT_CHECKED, AuditOptions, AuditResult, RuleFinding
from mcp_handbook.audit.preflight import ServerFacts
from mcp_handbook.audit.summary import summary_lines
from mcp_handbook.probes import PROBES, Target
from mcp_handbook.probes.support import not_applicable
from mcp_handbook.proving.verify import minimal_env

BIND_QUIRKS = [sys.executable, str(QUIRKS / "http_bind_quirks.py")]
needs_proc_net = pytest.mark.skipif(not os.path.isfile("/proc/net/tcp"), reason="reads Linux's /proc/net/tcp")


def _loopback_bind(url: str, tmp_path: Path):
    target = Target(argv=[], workspace=tmp_path, env=minimal_env(home=tmp_path), canary="hb-canary-x", timeout=5.0,
                    transport="http", url=url)
    return PROBES["http_listen_on_loopback"].run(target), target


@needs_proc_net
def test_by_url_a_server_bound_to_every_interface_fails_the_loopback_rule(tmp_path: Path) -> None:
    with serving_http([*BIND_QUIRKS, "--bind", "0.0.0.0"], cwd=tmp_path) as url:
        finding, target = _loopback_bind(url, tmp_path)
    assert (finding.status, finding.reason) == ("FAIL", "listens_beyond_loopback"), finding
    assert "beyond loopback (0.0.0.0)" in finding.summary
    # the kernel's own row, the port written PORT: 0A is LISTEN, 00000000 is 0.0.0.0
    assert "/proc/net/tcp: 00000000:PORT 00000000:0000 0A (listens on 0.0.0.0:PORT)" in finding.evidence
    assert target.sessions == []  # it reads the tables; it sends the server nothing


@needs_proc_net
def test_by_url_a_server_bound_to_loopback_passes_the_loopback_rule(tmp_path: Path) -> None:
    with serving_http([*BIND_QUIRKS, "--bind", "127.0.0.1"], cwd=tmp_path) as url:
        finding, _target = _loopback_bind(url, tmp_path)
    assert finding.status == "PASS", finding
    assert "/proc/net/tcp: 0100007F:PORT 00000000:0000 0A (listens on 127.0.0.1:PORT)" in finding.evidence


@needs_proc_net
def test_by_url_a_port_nothing_listens_on_here_is_not_checked_and_says_why(tmp_path: Path) -> None:
    with serving_http([*BIND_QUIRKS], cwd=tmp_path) as url:
        port = urlsplit(url).port
    finding, _target = _loopback_bind(f"http://127.0.0.1:{port}/mcp", tmp_path)  # the server is gone: nothing listens
    assert finding.status == "N/A", finding
    assert "no socket listens on the URL's port in this machine's /proc/net/tcp" in finding.summary
    remote, _target = _loopback_bind("http://192.0.2.10:8000/mcp", tmp_path)
    assert remote.status == "N/A" and "192.0.2.10 is not this machine's loopback" in remote.summary, remote


@pytest.fixture(scope="module")
def audited_by_url(project_root: Path, tmp_path_factory: pytest.TempPathFactory):
    """One audit by URL of the fixture server bound to every interface: (run, worksheet items, ledger counts)."""
    tmp = tmp_path_factory.mktemp("bind-quirks")
    ledger, out = tmp / "ledger.txt", tmp / "audit.json"
    with serving_http([*BIND_QUIRKS, "--bind", "0.0.0.0", "--ledger", str(ledger)], cwd=tmp) as url:
        run = run_cli(project_root, "audit", "--url", url, "-o", str(out), limit=120)
    items = {item["id"]: item for item in json.loads(out.read_text())["items"]}
    asked: dict[str, list[str]] = {}  # session id -> what happened in it, in order: open, METHOD..., delete
    for line in ledger.read_text().splitlines():
        what, session_id = line.split()
        asked.setdefault(session_id, []).append(what)
    return run, items, asked


@pytest.mark.slow  # a whole audit by URL
@needs_proc_net
def test_audit_url_judges_the_bind_and_the_rules_that_need_only_listings(audited_by_url) -> None:
    run, items, _asked = audited_by_url
    assert "Traceback" not in run.text
    assert run.code == 1, run.text
    assert "TRN-019 FAIL (high" in run.stdout, run.stdout
    # AUTH-005 reads tools/list only and ERR-014 resources/list and one read: both run over HTTP, not "stdio-only"
    assert items["AUTH-005"]["status"] == "Fail", items["AUTH-005"]
    assert "fetch_report: parameter /api_key asks for a credential by its name" in items["AUTH-005"]["evidence"]
    assert items["ERR-014"]["status"] == "Fail", items["ERR-014"]
    assert "a resource that does not exist was answered with a result" in items["ERR-014"]["evidence"]


def test_the_not_checked_banner_lists_every_high_rule_whatever_its_basis_and_says_why(project_root: Path) -> None:
    rules = {r.id: r for r in load_corpus(project_root).rules}
    unseen = "not checked: the audit cannot see which address the server listens on; run `ss -ltnp` on its host"
    findings = (
        RuleFinding(rules["TRN-019"], "http_listen_on_loopback", not_applicable(unseen), 0.0, na=NOT_CHECKED),  # spec-should
        RuleFinding(rules["SEC-017"], "resource_uri_containment", not_applicable(STDIO_ONLY), 0.0, na=NOT_CHECKED),  # spec-must
        RuleFinding(rules["SEC-019"], "resource_listing_contained", not_applicable(STDIO_ONLY), 0.0, na=NOT_CHECKED),
        RuleFinding(rules["OPS-008"], "structured_stderr_logs", not_applicable(STDIO_ONLY), 0.0, na=NOT_CHECKED),  # low
        RuleFinding(rules["TRN-001"], "stdout_jsonrpc_only", not_applicable("does not apply: over HTTP"), 0.0,
                    na=DOES_NOT_APPLY),
    )
    assert (rules["TRN-019"].severity, rules["SEC-017"].severity) == ("high", "high")
    assert "security" not in (rules["TRN-019"].basis, rules["SEC-017"].basis)
    result = AuditResult(("http://127.0.0.1:1/mcp",), ServerFacts(answered=True, transport="http"), findings, (), 1.0,
                         AuditOptions(url="http://127.0.0.1:1/mcp"))
    lines = summary_lines(result, outputs=[(Path("a.md"), "md")], manual=0)
    banner = [line for line in lines if line.startswith("NOT CHECKED")]
    assert banner == ["NOT CHECKED: 3 rule(s), 2 of them HIGH, every HIGH or security rule that could not be checked; "
                      "they are not known to be safe:"], lines
    assert "  SEC-017, SEC-019: stdio-only probe" in lines
    assert "  TRN-019: the audit cannot see which address the server listens on" in lines
    assert not any("OPS-008" in line or "TRN-001" in line for line in lines)  # not HIGH, not security; or applies not


@pytest.mark.slow  # a whole audit by URL
@needs_proc_net
def test_audit_url_ends_every_session_it_opens_and_lists_tools_once_for_the_probes_that_only_read(audited_by_url) -> None:
    _run, _items, asked = audited_by_url
    opened = [sid for sid, events in asked.items() if events[0] == "open"]
    left = [sid for sid in opened if "delete" not in asked[sid]]
    # the Host, Origin and session-id probes open sessions with raw requests: those are ended too
    assert left == [], f"{len(left)} of {len(opened)} session(s) left open: {[asked[s] for s in left]}"
    # the probes that judge only the listing read the preflight's: no session of their own that only lists tools.
    # Three such sessions remain: the preflight's, and those of the two probes that list on the session they call
    # tools on (ERR-002's and ERR-003's), which here finds nothing it may call (before: 21 such sessions)
    only_listed = [sid for sid in opened if set(asked[sid]) == {"open", "tools/list", "delete"}]
    assert len(only_listed) <= 3, f"{len(only_listed)} sessions did nothing but list the tools"
    assert len(opened) <= 30, len(opened)  # 42 before the listing was shared, 7 of them never ended
