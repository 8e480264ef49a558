"""Proving a rule over Streamable HTTP: the server options for an ``http`` rule, and finding the URL a started
server prints (bounded, with a clear finding when it never comes)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from mcp_handbook import load_corpus
from mcp_handbook.probes import Target
from mcp_handbook.probes.http import endpoint, parse_url
from mcp_handbook.probes.support import ProbeAbort
from mcp_handbook.probes.transport.http_session_ids_unguessable import (
    estimated_bits,
    shared_fraction,
)
from mcp_handbook.proving.server_options import server_args
from mcp_handbook.proving.verify import minimal_env


def test_an_http_rule_is_proved_over_http_on_loopback(project_root: Path) -> None:
    rules = {r.id: r for r in load_corpus(project_root).rules}
    assert server_args(rules["TRN-012"]) == ["--http", "127.0.0.1:0"]
    assert server_args(rules["TRN-014"]) == ["--legacy-only", "--http", "127.0.0.1:0"]
    assert server_args(rules["TRN-004"]) == []  # a stdio rule is still proved over stdio


def _target(tmp_path: Path, code: str, *, transport: str = "http") -> Target:
    return Target(argv=[sys.executable, "-c", code], workspace=tmp_path, env=minimal_env(home=tmp_path), canary="c",
                  timeout=0.5, transport=transport)


def test_the_url_a_started_server_prints_is_found(tmp_path: Path) -> None:
    target = _target(tmp_path, "import sys, time; print('x: listening on http://127.0.0.1:4321/mcp', file=sys.stderr, "
                               "flush=True); time.sleep(30)")
    try:
        point = endpoint(target)
    finally:
        target.stop_all()
    assert (point.host, point.port, point.path, target.url) == ("127.0.0.1", 4321, "/mcp", "http://127.0.0.1:4321/mcp")


@pytest.mark.parametrize(
    ("code", "reason", "words"),
    [
        ("import time; time.sleep(30)", "no_answer", "printed no `listening on URL` line within 0.5 s"),
        ("raise SystemExit(4)", "server_exited", "exited (code 4) before it printed the URL"),
    ],
    ids=["silent", "exits"],
)
def test_a_server_that_never_prints_its_url_is_a_generic_failure_in_bounded_time(
    tmp_path: Path, code: str, reason: str, words: str,
) -> None:
    target = _target(tmp_path, code)
    began = time.monotonic()
    try:
        with pytest.raises(ProbeAbort) as stop:
            endpoint(target)
    finally:
        target.stop_all()
    assert (stop.value.finding.status, stop.value.finding.reason) == ("FAIL", reason)
    assert words in stop.value.finding.summary
    assert time.monotonic() - began < 5


def test_a_stdio_target_has_no_http_endpoint(tmp_path: Path) -> None:
    with pytest.raises(ProbeAbort) as stop:
        endpoint(_target(tmp_path, "pass", transport="stdio"))
    assert stop.value.finding.status == "N/A"
    assert parse_url("https://mcp.example.com/mcp").port == 443


def test_session_ids_are_judged_by_alphabet_length_and_likeness() -> None:
    assert estimated_bits(["session-1", "session-2"]) < 128  # a counter
    assert estimated_bits(["0123456789abcdef" * 2]) == 128  # 32 hex characters
    assert estimated_bits(["123e4567-e89b-42d3-a456-426614174000"]) == 128  # hyphens do not count
    assert estimated_bits(["A" * 43]) > 128
    assert shared_fraction("aaaaXXXX", "aaaaYYYY") == 0.5
    assert shared_fraction("abcd", "efgh") == 0.0
