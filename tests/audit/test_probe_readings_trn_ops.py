"""Transport and operations probe readings an independent review found wrong (doctrine 1.3.0), each against a
small server that shows it; every case here read differently before the fix."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import pytest

from mcp_handbook.probes import PROBES, Target
from mcp_handbook.proving.verify import minimal_env

QUIRKS = Path(__file__).resolve().parent / "quirks"


def _run(probe: str, tmp_path: Path, script: str, *args: str):
    canary = f"hb-canary-{secrets.token_hex(8)}"
    target = Target(argv=[sys.executable, str(QUIRKS / script), *args], workspace=tmp_path,
                    env=minimal_env(home=tmp_path, HB_CANARY=canary), canary=canary, allow_tool_calls=frozenset(),
                    timeout=3.0)
    try:
        return PROBES[probe].run(target)
    finally:
        target.stop_all()


def test_silence_on_server_discover_from_a_server_that_serves_2026_07_28_fails(tmp_path: Path) -> None:
    """TRN-018: the probe used to stop at the silence and call the server legacy (N/A)."""
    finding = _run("modern_server_discover", tmp_path, "trn_discover_quirks.py", "--silent-discover")
    assert finding.status == "FAIL", finding
    assert finding.reason == "discover_refused"
    assert "unanswered" in finding.summary


def test_a_discovery_result_without_2026_07_28_does_not_apply_when_that_revision_is_not_served(tmp_path: Path) -> None:
    """TRN-018: the probe used to fail a result leaving out 2026-07-28 from a server that does not serve it."""
    finding = _run("modern_server_discover", tmp_path, "trn_discover_quirks.py", "--other-versions")
    assert finding.status == "N/A", finding
    assert finding.summary.startswith("does not apply: the server does not speak 2026-07-28"), finding.summary


@pytest.mark.parametrize(("code", "status"), [(-32603, "FAIL"), (-32601, "FAIL"), (-32602, "PASS")])
def test_an_unknown_log_level_must_get_invalid_params(tmp_path: Path, code: int, status: str) -> None:
    """OPS-009: any error used to pass for the unknown level 'verbose'."""
    finding = _run("honour_log_level", tmp_path, "ops_quirks.py", "--unknown-level-code", str(code))
    assert finding.status == status, finding
    if status == "FAIL":
        assert finding.reason == "unknown_level_wrong_code"


@pytest.mark.parametrize(("case", "status"), [("upper", "FAIL"), ("lower", "PASS")])
def test_a_stderr_level_is_compared_as_the_protocol_writes_it(tmp_path: Path, case: str, status: str) -> None:
    """OPS-008: the probe used to lower-case the level, so Python's WARNING passed while OPS-009 refused it."""
    finding = _run("structured_stderr_logs", tmp_path, "ops_quirks.py", "--level-case", case)
    assert finding.status == status, finding
    if status == "FAIL":
        assert finding.reason == "bad_level"


def test_a_server_that_hands_out_no_cursor_is_outside_the_paging_rule(tmp_path: Path) -> None:
    """OPS-004: a one-page server that ignores a cursor used to FAIL with invalid_cursor_accepted."""
    finding = _run("tools_list_paging", tmp_path, "ops_quirks.py")
    assert finding.status == "N/A", finding
    assert finding.summary.startswith("does not apply:"), finding.summary


def test_a_banner_hidden_by_block_buffering_is_seen(tmp_path: Path) -> None:
    """TRN-001: a Python server's print() banner waited in its stdout buffer until exit; stopped by SIGTERM first,
    it was never seen and the probe passed. The probe starts the server unbuffered, as container hosts do."""
    finding = _run("stdout_jsonrpc_only", tmp_path, "trn_buffered_banner.py")
    assert (finding.status, finding.reason) == ("FAIL", "non_jsonrpc_stdout"), finding
    assert any("Starting buffered-banner server" in row for row in finding.evidence), finding.evidence


@pytest.mark.parametrize(("subscribe", "status"), [("missing", "FAIL"), ("served", "PASS")])
def test_an_advertised_subscription_must_be_a_method(tmp_path: Path, subscribe: str, status: str) -> None:
    """OPS-003: ``resources.subscribe: true`` with -32601 for resources/subscribe passed before (GitHub's Go server)."""
    finding = _run("advertise_capabilities", tmp_path, "ops_quirks.py", "--subscribe", subscribe)
    assert finding.status == status, finding
    if status == "FAIL":
        assert finding.reason == "advertised_not_served" and "resources/subscribe is not a method" in " ".join(finding.evidence)


@pytest.mark.parametrize("subscribe", ["missing", "served"])
def test_an_advertised_subscription_not_exercised_is_not_checked(project_root: Path, subscribe: str) -> None:
    """OPS-003 under --no-tool-calls: resources/subscribe is not sent, so an advertised subscription is not known to
    work; it read PASS (GitHub's Go server, whose -32601 only a request shows), and the audit exited 0."""
    from mcp_handbook import load_corpus
    from mcp_handbook.audit import AuditOptions, run_audit

    result = run_audit(load_corpus(project_root), [sys.executable, str(QUIRKS / "ops_quirks.py"), "--subscribe", subscribe],
                       options=AuditOptions(wait=2, tool_calls=False, rules=frozenset({"OPS-003"}), sdk_baseline=False))
    finding = next(f.finding for f in result.findings if f.rule.id == "OPS-003")
    assert finding.status == "N/A" and "resources.subscribe (resources/subscribe) not exercised" in finding.summary, finding
    assert result.exit_code == 3


def test_copies_that_fight_over_one_file_are_asked_again_alone(tmp_path: Path) -> None:
    """TRN-006 starts one server per revision at once; a server that owns a file in its folder (mcp-server-duckdb's
    database) lets only the first copy live, and the others' silence read as initialize_unanswered, by chance."""
    finding = _run("version_negotiation", tmp_path, "single_copy.py")
    assert finding.status == "PASS", finding
