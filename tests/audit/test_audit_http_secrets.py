"""SEC-009, SEC-020 and SEC-022 in an audit by URL (``quirks/http_env_fetch.py``): no canary can be planted in a
server someone else started, so SEC-009 judges an answer that holds a process environment, and the SSRF probes use
their listeners on 127.0.0.1 when the server is on this machine's loopback. Every server is stopped by its group."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from audit_helpers import QUIRKS, serving_http
from mcp_handbook.probes import PROBES, Target
from mcp_handbook.probes.security.no_secret_in_output import environment_names
from mcp_handbook.probes.support import Finding
from mcp_handbook.proving.verify import minimal_env

ENV_FETCH = [sys.executable, str(QUIRKS / "http_env_fetch.py")]


def _by_url(probe: str, tmp_path: Path, *args: str) -> Finding:
    with serving_http([*ENV_FETCH, *args], cwd=tmp_path) as url:
        target = Target(argv=[], workspace=tmp_path, env=minimal_env(home=tmp_path), canary="hb-canary-x", timeout=5.0,
                        transport="http", url=url, allow_tool_calls=frozenset())
        try:
            return PROBES[probe].run(target)
        finally:
            target.stop_all()


def test_by_url_a_tool_that_returns_the_process_environment_fails_sec_009_with_names_only(tmp_path: Path) -> None:
    finding = _by_url("no_secret_in_output", tmp_path)
    assert (finding.status, finding.reason) == ("FAIL", "environment_in_output"), finding
    row = next(r for r in finding.evidence if r.startswith("get_env("))
    assert "PATH" in row and "(values not shown)" in row and "/usr" not in row


def test_by_url_a_minimal_environment_is_not_a_leak_and_nothing_seen_is_never_a_pass(tmp_path: Path) -> None:
    finding = _by_url("no_secret_in_output", tmp_path, "--clean")
    assert finding.status == "N/A" and finding.summary.startswith("not checked: over HTTP"), finding


def test_by_url_a_fetch_of_loopback_fails_sec_020_and_a_refusal_is_not_checked(tmp_path: Path) -> None:
    finding = _by_url("fetch_refuse_internal", tmp_path)
    assert (finding.status, finding.reason) == ("FAIL", "fetched_internal"), finding
    clean = _by_url("fetch_refuse_internal", tmp_path, "--clean")
    assert clean.status == "N/A" and "refusal cannot be told" in clean.summary, clean


def test_by_url_a_followed_redirect_fails_sec_022(tmp_path: Path) -> None:
    finding = _by_url("fetch_check_redirects", tmp_path)
    assert (finding.status, finding.reason) == ("FAIL", "followed_redirect"), finding


def test_by_url_a_server_beyond_loopback_is_not_checked_for_ssrf(tmp_path: Path) -> None:
    target = Target(argv=[], workspace=tmp_path, env=minimal_env(home=tmp_path), canary="hb-canary-x", timeout=1.0,
                    transport="http", url="http://192.0.2.1:9/mcp", allow_tool_calls=frozenset())
    for probe in ("fetch_refuse_internal", "fetch_check_redirects"):
        finding = PROBES[probe].run(target)
        assert finding.status == "N/A" and "not on this machine's loopback" in finding.summary, finding
    assert target.sessions == []  # nothing was sent to it


@pytest.mark.parametrize(("text", "names"), [
    ('{"PATH": "/usr/bin:/bin", "HOME": "/root", "USER": "me", "API_TOKEN": "x"}', ["API_TOKEN", "HOME", "PATH", "USER"]),
    ("PATH=/usr/bin\nHOME=/root\nPWD=/srv\nDATABASE_URL=postgres://x", ["DATABASE_URL", "HOME", "PATH", "PWD"]),
    ('{"PATH": "/usr/bin", "HOME": "/h", "LANG": "C.UTF-8"}', []),  # a minimal child environment: fixed names only
    ('{"PATH": "a route", "HOME": "x", "USER": "y", "MODE": "z"}', []),  # no folders on PATH: not an environment
    ("the weather is fine", []),
])
def test_what_counts_as_a_process_environment(text: str, names: list[str]) -> None:
    assert environment_names(text) == names
