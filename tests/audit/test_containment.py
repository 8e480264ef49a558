"""The auditor contains its probes: a probe that raises, hangs, or calls a destructive tool never becomes the incident."""

from __future__ import annotations

import pytest

import re
import time
from pathlib import Path

from audit_helpers import fake_corpus, hostile, probe, still_running

from mcp_handbook.audit import AuditOptions, run_audit
from mcp_handbook.audit.guard import BlockedToolCall, ToolCallGuard
from mcp_handbook.probes.support import Target, call_tool, passed

pytestmark = pytest.mark.slow  # probes and audits stopped at their deadlines

FAST = AuditOptions(timeout=20, probe_timeout=2, wait=0.5, jobs=2)


def _by_rule(result) -> dict:
    return {f.rule.id: f.finding for f in result.findings}


def test_a_probe_that_raises_becomes_a_fail_naming_the_error(tmp_path: Path) -> None:
    def raises(target: Target):
        target.start().initialize(timeout=target.timeout)
        raise KeyError("serverInfo")

    result = run_audit(
        fake_corpus(tmp_path, {"TST-001": "raises"}), hostile("tiny"), options=FAST, probes={"raises": probe("raises", raises)},
    )
    finding = _by_rule(result)["TST-001"]
    assert finding.status == "FAIL"
    assert "KeyError" in finding.summary and "serverInfo" in finding.summary
    assert result.exit_code == 1


def test_a_hanging_probe_is_stopped_at_its_deadline_and_its_server_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"

    def hangs(target: Target):
        target.start()
        time.sleep(30)  # a probe that never gives up; its thread is abandoned
        return passed("never reached")

    began = time.monotonic()
    result = run_audit(
        fake_corpus(tmp_path, {"TST-001": "hangs"}), hostile("tiny", "--pidfile", str(pidfile)),
        options=FAST, probes={"hangs": probe("hangs", hangs)},
    )
    finding = _by_rule(result)["TST-001"]
    assert finding.status == "N/A" and re.search(r"did not finish within [0-9.]+ s", finding.summary)
    assert time.monotonic() - began < 8
    assert len(pidfile.read_text().split()) == 3  # the preflight's two (initialize, then server/discover) and the probe's
    assert still_running(pidfile) == []


def test_the_whole_audit_stops_at_its_time_budget(tmp_path: Path) -> None:
    def slow(target: Target):
        time.sleep(30)
        return passed("never reached")

    rules = {f"TST-00{i}": "slow" for i in range(1, 4)}
    began = time.monotonic()
    options = AuditOptions(timeout=2.5, probe_timeout=60, wait=0.5, jobs=1)
    result = run_audit(fake_corpus(tmp_path, rules), hostile("tiny"), options=options, probes={"slow": probe("slow", slow)})
    assert time.monotonic() - began < 6
    summaries = [f.finding.summary for f in result.findings]
    assert all(f.finding.status == "N/A" for f in result.findings)
    assert "time budget ran out" in summaries[0]


def _calls_wipe(target: Target):
    session = target.start()
    session.initialize(timeout=target.timeout)
    response = call_tool(session, "wipe", {"path": "."}, timeout=target.timeout)  # ignores target.may_call on purpose
    return passed(f"wipe answered {response}")


def test_the_guard_never_lets_a_probe_call_a_destructive_tool(tmp_path: Path) -> None:
    tripwire = tmp_path / "tripwire"
    result = run_audit(
        fake_corpus(tmp_path, {"TST-001": "wipe"}), hostile("tiny", "--tripwire", str(tripwire)),
        options=FAST, probes={"wipe": probe("wipe", _calls_wipe, calls_tools=True)},
    )
    finding = _by_rule(result)["TST-001"]
    assert finding.status == "N/A" and "'wipe'" in finding.summary
    assert not tripwire.exists()


def test_a_tool_named_with_allow_tool_calls_is_called(tmp_path: Path) -> None:
    tripwire = tmp_path / "tripwire"
    options = AuditOptions(timeout=20, probe_timeout=2, wait=0.5, allow_tool_calls=frozenset({"wipe"}))
    result = run_audit(
        fake_corpus(tmp_path, {"TST-001": "wipe"}), hostile("tiny", "--tripwire", str(tripwire)),
        options=options, probes={"wipe": probe("wipe", _calls_wipe, calls_tools=True)},
    )
    assert _by_rule(result)["TST-001"].status == "PASS"
    assert tripwire.exists()


def test_the_guard_reads_malformed_and_batched_frames_too() -> None:
    tools = [{"name": "wipe"}, {"name": "echo", "annotations": {"readOnlyHint": True}}]
    guard = ToolCallGuard.for_tools(tools, allow=frozenset())
    for frame in (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wipe","arguments":{}}}\n',
        b'[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wipe"}}]\n',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wipe","arguments":{\n',
    ):
        try:
            guard.check(frame)
        except BlockedToolCall:
            continue
        raise AssertionError(f"not blocked: {frame!r}")
    guard.check(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}\n')
    guard.check(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool"}}\n')
    assert guard.blocked == ["wipe", "wipe", "wipe"]


def test_the_guard_trusts_the_session_listing_that_is_least_safe() -> None:
    guard = ToolCallGuard.for_tools([{"name": "echo", "annotations": {"readOnlyHint": True}}], allow=frozenset())
    call_echo = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}\n'
    guard.check(call_echo, seen={"echo": True})
    try:
        guard.check(call_echo, seen={"echo": False})  # the server lists it differently now
    except BlockedToolCall:
        pass
    else:
        raise AssertionError("a tool the session lists as not read-only was called")


def test_when_the_tools_are_unknown_only_named_tools_are_called() -> None:
    guard = ToolCallGuard.for_tools([], allow=frozenset({"named"}), listed=False)
    guard.check(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"named"}}\n')
    try:
        guard.check(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"anything"}}\n')
    except BlockedToolCall:
        return
    raise AssertionError("a tool of a server that never listed its tools was called")
