"""Readers share one server: probes registered ``shares_session`` run on one live session, and a reader that asks for
more than reading, or leaves the workspace changed, never hands that on to the next probe."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_helpers import fake_corpus, hostile

from mcp_handbook.audit import AuditOptions, run_audit
from mcp_handbook.probes.registry import Probe
from mcp_handbook.probes.support import Target, handshake, list_tools, passed

pytestmark = pytest.mark.slow  # real server processes

FAST = AuditOptions(timeout=30, probe_timeout=10, wait=2, jobs=2)


def reader(name: str, then=None) -> Probe:
    """A probe registered as a reader: handshake, list the tools, then ``then(session, target)``; its summary names the
    server process it met and the tools it saw."""

    def run(target: Target):
        session, _init = handshake(target)
        tools = list_tools(session, timeout=target.timeout)
        if then is not None:
            then(session, target)
        return passed(f"pid {session.pid}, {len(tools)} tools, files: {sorted(p.name for p in target.workspace.iterdir())}")

    return Probe(name, run, f"fake reader {name}", shares_session=True)


def _summaries(result) -> dict[str, str]:
    return {f.rule.id: f.finding.summary for f in result.findings}


def _pid(summary: str) -> str:
    return summary.split(",")[0]


def test_readers_meet_one_server_process(tmp_path: Path) -> None:
    probes = {f"read{n}": reader(f"read{n}") for n in range(3)}
    result = run_audit(fake_corpus(tmp_path, {f"TST-00{n}": f"read{n}" for n in range(3)}), hostile("tiny"),
                       options=FAST, probes=probes)
    seen = _summaries(result)
    assert all(f.finding.status == "PASS" for f in result.findings), seen
    assert len({_pid(s) for s in seen.values()}) == 1, seen
    assert all("2 tools" in s for s in seen.values()), seen


def test_a_reader_that_signals_the_server_is_run_on_a_server_of_its_own(tmp_path: Path) -> None:
    import signal

    probes = {"read0": reader("read0"), "signals": reader("signals", lambda s, t: s.signal(signal.SIGCONT)),
              "read1": reader("read1")}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "read0", "TST-002": "signals", "TST-003": "read1"}),
                       hostile("tiny"), options=FAST, probes=probes)
    seen = _summaries(result)
    assert all(f.finding.status == "PASS" for f in result.findings), seen  # its verdict is its own, not a probe error
    assert _pid(seen["TST-001"]) == _pid(seen["TST-003"]) != _pid(seen["TST-002"]), seen


def test_a_reader_that_sends_a_tool_call_with_side_effects_is_run_on_a_server_of_its_own(tmp_path: Path) -> None:
    tripwire = tmp_path / "tripwire"

    def wipes(session, target: Target) -> None:
        session.request("tools/call", {"name": "wipe", "arguments": {"path": "x"}}, timeout=target.timeout)

    probes = {"read0": reader("read0"), "wipes": reader("wipes", wipes)}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "read0", "TST-002": "wipes"}),
                       hostile("tiny", "--tripwire", str(tripwire)), options=FAST, probes=probes)
    seen = {f.rule.id: f.finding for f in result.findings}
    assert not tripwire.exists()  # the guard of its own server refused it, as before sharing
    assert seen["TST-002"].status == "N/A" and "wipe" in seen["TST-002"].summary, seen
    assert seen["TST-001"].status == "PASS"


def test_a_reader_that_leaves_a_file_behind_retires_the_shared_server(tmp_path: Path) -> None:
    probes = {"litters": reader("litters", lambda s, t: (t.workspace / "left-behind.txt").write_text("x")),
              "read1": reader("read1")}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "litters", "TST-002": "read1"}), hostile("tiny"),
                       options=FAST, probes=probes)
    seen = _summaries(result)
    assert _pid(seen["TST-001"]) != _pid(seen["TST-002"]), seen
    assert "left-behind.txt" not in seen["TST-002"], seen  # a fresh workspace, as a server of its own would have



def test_a_reader_that_removes_what_it_planted_keeps_the_shared_server(tmp_path: Path) -> None:
    from mcp_handbook.probes.support import planted

    def plants(session, target: Target) -> None:
        with planted(target.workspace / "hb-planted"):
            (target.workspace / "hb-planted").mkdir()
            (target.workspace / "hb-planted" / "item.txt").write_text("x")

    probes = {"plants": reader("plants", plants), "read1": reader("read1")}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "plants", "TST-002": "read1"}), hostile("tiny"),
                       options=FAST, probes=probes)
    seen = _summaries(result)
    assert _pid(seen["TST-001"]) == _pid(seen["TST-002"]), seen
    assert "hb-planted" not in seen["TST-002"], seen
    assert dict(result.starts).get("shared") == 1 and "plants" not in dict(result.starts), result.starts


def test_the_audit_counts_the_servers_it_started_by_what_for(tmp_path: Path) -> None:
    from mcp_handbook.audit.summary import started_line

    def solo(target: Target):
        session, _init = handshake(target)
        return passed(f"pid {session.pid}")

    probes = {"read0": reader("read0"), "read1": reader("read1"), "solo": Probe("solo", solo, "a server of its own")}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "read0", "TST-002": "read1", "TST-003": "solo"}),
                       hostile("tiny"), options=FAST, probes=probes)
    starts = dict(result.starts)
    assert starts["shared"] == 1 and starts["solo"] == 1 and starts["preflight"] >= 1, starts
    assert "read0" not in starts and result.started() == sum(starts.values()), starts
    assert started_line(result).startswith(f"{result.started()} (") and "solo 1" in started_line(result)


def test_a_prompt_reader_renders_prompts_on_the_shared_server(tmp_path: Path) -> None:
    import sys

    from mcp_handbook.probes import PROBES

    probes = {"read0": reader("read0"), "prompt_arguments_checked": PROBES["prompt_arguments_checked"]}
    command = [sys.executable, "-m", "reference_server", "--workspace", "{workspace}"]
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "read0", "TST-002": "prompt_arguments_checked"}), command,
                       options=FAST, probes=probes)
    seen = {f.rule.id: f.finding for f in result.findings}
    assert seen["TST-002"].status == "PASS" and "-32602" in seen["TST-002"].summary, seen
    assert "prompt_arguments_checked" not in dict(result.starts), result.starts


def test_a_reader_sees_only_its_own_part_of_the_shared_session(tmp_path: Path) -> None:
    views = []

    def keeps_its_view(session, target: Target) -> None:
        views.append(session)

    def echoes(session, target: Target) -> None:  # after the first reader's turn
        session.request("tools/call", {"name": "echo", "arguments": {"path": "hb-later-turn"}}, timeout=target.timeout)

    probes = {"first": reader("first", keeps_its_view), "echoes": reader("echoes", echoes)}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "first", "TST-002": "echoes"}), hostile("tiny"),
                       options=FAST, probes=probes)
    seen = _summaries(result)
    assert _pid(seen["TST-001"]) == _pid(seen["TST-002"]), seen
    rows = [m.line.text for m in views[0].stdout] + views[0].transcript() + [ln.text for ln in views[0]._sent]
    assert any("tools/list" in r for r in rows) and not any("hb-later-turn" in r for r in rows), rows


def _starts_servers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The probe names (threads) that spawned a server process during an audit."""
    import subprocess
    import threading

    spawned: list[str] = []
    real = subprocess.Popen.__init__

    def counting(self, *args, **kwargs):
        spawned.append(threading.current_thread().name.removeprefix("audit-probe-"))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", counting)
    return spawned


def test_a_probe_that_decides_from_the_listing_starts_no_server(tmp_path: Path, monkeypatch) -> None:
    from mcp_handbook.probes.support import not_applicable, session_with_tools

    def by_listing(target: Target):
        _session, init, tools = session_with_tools(target)
        return not_applicable(f"{len(tools)} tools, none with a path; {init.get('serverInfo', {}).get('name')}")

    def uses_it(target: Target):
        session, _init, tools = session_with_tools(target)
        session.request("ping", timeout=target.timeout)
        return passed(f"pid {session.pid}, {len(tools)} tools")

    spawned = _starts_servers(monkeypatch)
    probes = {"by_listing": Probe("by_listing", by_listing, "decides from the listing"),
              "uses_it": Probe("uses_it", uses_it, "uses its session")}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "by_listing", "TST-002": "uses_it"}), hostile("tiny"),
                       options=FAST, probes=probes)
    seen = {f.rule.id: f.finding for f in result.findings}
    assert seen["TST-001"].status == "N/A" and seen["TST-001"].summary.startswith("2 tools"), seen
    assert seen["TST-002"].status == "PASS" and "2 tools" in seen["TST-002"].summary, seen
    assert "by_listing" not in spawned and spawned.count("uses_it") == 1, spawned


def test_long_probes_start_first(tmp_path: Path) -> None:
    import time

    began: dict[str, float] = {}

    def noting(name: str):
        def run(target: Target):
            began[name] = time.monotonic()
            return passed(name)
        return run

    probes = {n: Probe(n, noting(n), n, long=n == "wide") for n in ("one", "two", "wide")}
    run_audit(fake_corpus(tmp_path, {"TST-001": "one", "TST-002": "two", "TST-003": "wide"}), hostile("tiny"),
              options=AuditOptions(timeout=30, probe_timeout=10, wait=2, jobs=1), probes=probes)
    assert began["wide"] < began["one"] < began["two"], began


def test_clean_protocol_errors_judges_the_answers_protocol_error_codes_got(tmp_path: Path) -> None:
    import sys

    from mcp_handbook.probes import PROBES

    names = {"TST-001": "protocol_error_codes", "TST-002": "clean_protocol_errors"}
    command = [sys.executable, "-m", "reference_server", "--workspace", "{workspace}"]
    both = run_audit(fake_corpus(tmp_path, names), command, options=FAST, probes=PROBES)
    seen = {f.rule.id: f.finding for f in both.findings}
    assert seen["TST-001"].status == seen["TST-002"].status == "PASS", seen
    assert dict(both.starts).get("protocol_error_codes") == 1 and "clean_protocol_errors" not in dict(both.starts), \
        both.starts
    alone = run_audit(fake_corpus(tmp_path, {"TST-002": "clean_protocol_errors"}), command, options=FAST, probes=PROBES)
    assert dict(alone.starts).get("clean_protocol_errors") == 1, alone.starts  # no lead: a server of its own
    assert alone.findings[0].finding.summary == seen["TST-002"].summary, (alone.findings, seen)


def test_a_companion_gets_a_server_of_its_own_when_its_lead_kept_nothing(tmp_path: Path) -> None:
    from collections import deque

    from mcp_handbook.audit.contain import Contained
    from mcp_handbook.audit.schedule import SharedLane
    from mcp_handbook.audit.target import AuditTarget

    own = []
    lane = SharedLane(None, deque(), {"clean_protocol_errors": Probe("clean_protocol_errors", lambda t: passed(""), "c")},
                      {}, 1.0, 5.0, lambda name: None, lambda name: own.append(name) or "solo")  # type: ignore[arg-type]
    target = AuditTarget(argv=["x"], workspace=tmp_path, env={}, canary="c", opening={}, listing=[])
    lead = Contained("protocol_error_codes", lambda t: passed(""), target, limit=5.0)
    lane.held["protocol_error_codes"] = "clean_protocol_errors"
    assert lane.follow(lead) == "solo" and own == ["clean_protocol_errors"]  # it kept nothing: its own server
    target.kept["protocol_faults"] = []
    lane.held["protocol_error_codes"] = "clean_protocol_errors"
    lead.killed = True
    assert lane.follow(lead) == "solo"  # stopped at its deadline: its target cannot be trusted
    lead.killed = False
    lane.held["protocol_error_codes"] = "clean_protocol_errors"
    after = lane.follow(lead)
    assert isinstance(after, Contained) and after.target is target and after.name == "clean_protocol_errors"
    assert lane.follow(lead) is None and not lane.held  # one companion, run once


def test_a_reader_whose_tool_call_goes_unanswered_stays_on_the_shared_server(tmp_path: Path) -> None:
    """A read-only tool slower than the wait: the reader notes it as not checked and goes on, on the shared server.
    Asking the shared session whether stdout was flooded (how a call goes unanswered) used to send the probe to a
    server of its own, to wait out the same slow tool again (server-everything's long-running operation: 10 s more)."""
    import sys

    from audit_helpers import QUIRKS

    from mcp_handbook.probes import PROBES

    probes = {"error_next_step": PROBES["error_next_step"]}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "error_next_step"}),
                       [sys.executable, str(QUIRKS / "ux_slow_listing.py")], options=FAST, probes=probes)
    finding = result.findings[0].finding
    assert finding.status == "PASS", finding
    assert any(row.startswith("not checked: list_items did not answer") for row in finding.evidence), finding
    assert "error_next_step" not in dict(result.starts) and dict(result.starts).get("shared", 0) >= 1, result.starts


def test_a_reader_that_plants_before_it_opens_and_cleans_up_leaves_the_shared_server_in_service(tmp_path: Path) -> None:
    """The workspace a shared server started with is noted before a reader's own code runs: a reader that plants a
    file, opens its session and removes the file again (TOOL-013's probe) is not taken to have changed the tree."""

    def plants_first(target: Target):
        planted = target.workspace / "hb-planted-first.txt"
        planted.write_text("x")
        try:
            session, _init = handshake(target)
            list_tools(session, timeout=target.timeout)
        finally:
            planted.unlink()
        return passed(f"pid {session.pid}")

    probes = {"plants": Probe("plants", plants_first, "plants, then opens", shares_session=True),
              "read1": reader("read1")}
    result = run_audit(fake_corpus(tmp_path, {"TST-001": "plants", "TST-002": "read1"}), hostile("tiny"),
                       options=FAST, probes=probes)
    seen = _summaries(result)
    assert _pid(seen["TST-001"]) == _pid(seen["TST-002"]), seen
    assert dict(result.starts).get("shared") == 1, result.starts


def test_the_shared_servers_workspace_is_compared_by_content_not_by_times(tmp_path: Path) -> None:
    """``git status`` rewrites ``.git/index`` with the same bytes and moves ``.git``'s time (a lock file came and
    went): nothing a probe can meet changed. The same size with other bytes is a change."""
    import os

    from mcp_handbook.audit.shared_servers import snapshot

    (tmp_path / ".git").mkdir()
    index = tmp_path / ".git" / "index"
    index.write_bytes(b"DIRC0001")
    before = snapshot(tmp_path)
    (tmp_path / ".git" / "index.lock").write_bytes(b"x")
    (tmp_path / ".git" / "index.lock").unlink()
    index.write_bytes(b"DIRC0001")
    os.utime(index, ns=(10**18, 10**18))
    os.utime(tmp_path / ".git", ns=(10**18, 10**18))
    assert snapshot(tmp_path) == before
    index.write_bytes(b"DIRC0002")
    os.utime(index, ns=(10**18, 10**18))
    assert snapshot(tmp_path) != before


def test_a_snapshot_reads_a_bounded_number_of_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that fills its workspace must not make the auditor read it all after every shared probe: past the
    budget, files are compared by time (so the same bytes with a new time then count as a change)."""
    import os

    from mcp_handbook.audit import shared_servers

    monkeypatch.setattr(shared_servers, "HASH_BUDGET", 10)
    for name in ("a", "b", "c"):
        (tmp_path / name).write_bytes(b"12345678")  # a fits the budget; b and c do not
    reads: list[str] = []
    real_open = open

    def counting_open(path, *args, **kwargs):
        reads.append(os.path.basename(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", counting_open)
    before = shared_servers.snapshot(tmp_path)
    assert reads == ["a"], reads
    os.utime(tmp_path / "a", ns=(10**18, 10**18))
    assert shared_servers.snapshot(tmp_path) == before  # read by content: the same bytes
    os.utime(tmp_path / "c", ns=(10**18, 10**18))
    assert shared_servers.snapshot(tmp_path) != before  # past the budget: by time
