"""Quirks of real servers, each found by hand, that the error, frame-size and fuzz probes once judged wrongly.

Each fixture in ``quirks/`` reproduces one third-party behaviour with a few lines over the tiny server; each
test runs the one probe concerned against it, directly, and asserts on the status, the reason and the summary.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_handbook.probes import PROBES
from mcp_handbook.probes.errors._common import validator_dump
from mcp_handbook.probes.errors.echo_request_ids import ECHO_IDS
from mcp_handbook.probes.support import Finding, Target
from mcp_handbook.probes.testing.bounded_fuzz import _calls
from mcp_handbook.proving.verify import minimal_env

QUIRKS = Path(__file__).resolve().parent / "quirks"
sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
import tiny  # noqa: E402  (the fixtures' base: its tool listing)


@pytest.fixture
def run_probe(tmp_path: Path) -> Iterator:
    """``run_probe(probe, fixture, *args)``: the probe's finding against ``quirks/<fixture>.py``; every process stopped."""
    targets: list[Target] = []

    def run(probe: str, fixture: str, *args: str) -> Finding:
        workspace = tmp_path / f"ws-{len(targets)}"
        workspace.mkdir()
        canary = f"hb-canary-{secrets.token_hex(8)}"
        target = Target(argv=[sys.executable, str(QUIRKS / f"{fixture}.py"), *args], workspace=workspace,
                        env=minimal_env(home=workspace, HB_CANARY=canary), canary=canary, timeout=5.0)
        targets.append(target)
        try:
            return PROBES[probe].run(target)
        finally:
            target.stop_all()

    yield run
    for target in targets:
        target.stop_all()


# -- 1. ids: only what a conforming peer can echo exactly ---------------------------------------------------

def test_id_echo_sends_only_interoperable_ids_and_a_large_safe_one() -> None:
    numbers = [i for pair in ECHO_IDS for i in pair if isinstance(i, int)]
    assert all(abs(i) <= 2**53 - 1 for i in numbers)
    assert any(abs(i) >= 2**52 for i in numbers)  # a large integer is still checked
    assert any(isinstance(i, str) and not i.isascii() for pair in ECHO_IDS for i in pair)


def test_id_echo_passes_a_server_that_reads_numbers_as_doubles(run_probe) -> None:
    finding = run_probe("echo_request_ids", "err_float_ids")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    assert "9007199254740991" in "\n".join(finding.evidence)


# -- 2. frame size: say what was seen, never "no cap" ------------------------------------------------------

def test_frame_size_summary_tells_a_high_cap_from_none(run_probe) -> None:
    none = run_probe("frame_size_cap", "frame_capped", "--cap", "0")
    high = run_probe("frame_size_cap", "frame_capped", "--cap", str(8 * 1024 * 1024))
    low = run_probe("frame_size_cap", "frame_capped", "--cap", str(512 * 1024))
    assert (none.status, none.reason) == (high.status, high.reason) == ("FAIL", "oversize_processed")
    assert none.summary != high.summary
    assert "no cap at or below 16,777,216 bytes" in none.summary, none.summary
    assert "somewhere above 4,194,304 and at or below 16,777,216 bytes" in high.summary, high.summary
    for finding in (none, high):
        assert any(row.startswith("largest line sent: 16,777,216 bytes") for row in finding.evidence)
        assert "no frame cap" not in finding.summary and "there is no cap" not in finding.summary
    assert low.status == "PASS", (low.reason, low.summary)


# -- 3. the fuzz judges arguments, not the frame reader ------------------------------------------------------

@pytest.mark.slow  # a whole bounded fuzz
def test_bounded_fuzz_passes_a_silent_strict_frame_reader_and_fuzzes_every_tool(run_probe) -> None:
    finding = run_probe("bounded_fuzz", "fuzz_strict_reader")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    sendable = [c for c in _calls(tiny.TOOLS) if c[2].get("path") != "\ud800"]
    assert f"{len(sendable)} of {len(sendable)} fuzzed tools/call requests sent, to {len(tiny.TOOLS)} tool(s)" \
        in finding.evidence
    assert any(row.startswith('not sent as an argument: "\\ud800"') for row in finding.evidence), finding.evidence


def test_fuzz_values_that_ask_for_much_go_last_so_they_share_one_window() -> None:
    """A duration or count of 1,000 or more may rightly keep a call busy for minutes: such calls are sent last, in
    the fuzz's final window, not one in each chunk (server-everything's long-running operation cost the fuzz a window
    in each of its last two chunks and the budget ran out after 60 of 147 calls)."""
    tool = {"name": "long_operation", "annotations": {"readOnlyHint": True}, "inputSchema": {"type": "object",
            "properties": {"duration": {"type": "number"}, "label": {"type": "string"}}}}
    calls = _calls([tool, *tiny.TOOLS])
    much = [n for n, (_t, param, args, _k) in enumerate(calls) if isinstance(args[param], (int, float))
            and not isinstance(args[param], bool) and abs(args[param]) >= 1000]
    assert much and much == list(range(len(calls) - len(much), len(calls))), much
    assert {calls[n][3] for n in much} >= {"12345", "18446744073709551616", "1e+308"}


@pytest.mark.slow  # a whole bounded fuzz
def test_bounded_fuzz_leaves_a_long_operation_not_checked(run_probe) -> None:
    """server-everything's trigger-long-running-operation, asked for 12,345 seconds, works on and keeps serving:
    slow by design, not a dropped call."""
    finding = run_probe("bounded_fuzz", "fuzz_slow_by_design")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    assert "not checked: slow by design?" in finding.summary
    assert any(row.startswith("not checked: long_operation(duration=12345)") for row in finding.evidence), finding.evidence


@pytest.mark.slow  # a whole bounded fuzz
def test_bounded_fuzz_still_fails_a_call_that_is_dropped(run_probe) -> None:
    finding = run_probe("bounded_fuzz", "fuzz_slow_by_design", "--drop-strings")
    assert (finding.status, finding.reason) == ("FAIL", "fuzzed_call_unanswered"), (finding.summary, finding.evidence)
    assert any("long_operation(label=" in row for row in finding.evidence), finding.evidence


# -- 4. an unknown tool that "runs" -----------------------------------------------------------------------

def test_unknown_tool_answered_with_success_fails_with_its_own_reason(run_probe) -> None:
    finding = run_probe("protocol_error_codes", "err_unknown_tool_ok")
    assert (finding.status, finding.reason) == ("FAIL", "unknown_tool_succeeded"), (finding.reason, finding.summary)
    assert "never listed got a success result" in finding.summary
    assert "unknown_tool_succeeded" in PROBES["protocol_error_codes"].reasons


# -- 5. raw validation-library dumps are not feedback for the model ------------------------------------------

@pytest.mark.parametrize(("fixture", "args", "library"), [
    ("err_pydantic_dump", (), "pydantic"),
    ("err_zod_dump", (), "zod"),
    ("err_zod_dump", ("--compact",), "zod"),
])
def test_raw_validator_dump_fails_invalid_argument_feedback(run_probe, fixture: str, args: tuple[str, ...],
                                                            library: str) -> None:
    finding = run_probe("invalid_arguments_feedback", fixture, *args)
    assert (finding.status, finding.reason) == ("FAIL", "raw_validator_dump"), (finding.reason, finding.summary)
    assert f"{library}'s raw validation error" in finding.summary


ZOD = '[{"code":"invalid_type","expected":"string","received":"undefined","path":["path"],"message":"Required"}]'
PYDANTIC = ("1 validation error for get_current_timeArguments\ntimezone\n  Field required [type=missing, "
            "input_value={}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/missing")


@pytest.mark.parametrize(("text", "library"), [
    (ZOD, "zod"),
    ("MCP error -32602: Invalid arguments for tool read_file: [\n  {\n    \"code\": \"invalid_type\",\n"
     "    \"path\": [\n      \"path\"\n    ],\n    \"message\": \"Required\"\n  }\n]", "zod"),
    (f"Error executing tool get_current_time: {PYDANTIC}", "pydantic"),
    ("2 validation errors for Model", "pydantic"),
    ("'x' is a required property\n\nFailed validating 'required' in schema:\n    {}", "jsonschema"),
    ("The arguments for 'read_file' do not match its inputSchema:\n- /path: required; send a string", ""),
    ("Invalid arguments: 'timezone' is required [send an IANA name such as Europe/Paris]", ""),
    ("MCP error -32602: Input validation error: Invalid arguments for tool read_file: Invalid input: expected "
     "string, received undefined at path", ""),
    ('/items: got [{"path": ["a"], "message": "x"}], send a list of strings', ""),
])
def test_validator_dump_is_told_by_its_shape(text: str, library: str) -> None:
    assert validator_dump(text) == library


# -- ERR-002: a refusal sent as a success is read for what it says ------------------------------------------

def test_a_refusal_sent_as_a_success_fails_with_its_text(run_probe) -> None:
    """The probe used to pass a missing file answered ``isError: false`` whatever the text said."""
    finding = run_probe("tool_failures_are_results", "err_refusal_as_success", "--text", "refusal")
    assert (finding.status, finding.reason) == ("FAIL", "failure_reported_as_success"), finding
    assert any("ENOENT: no such file or directory" in row for row in finding.evidence), finding.evidence


def test_ordinary_output_that_mentions_errors_is_not_a_failure(run_probe) -> None:
    finding = run_probe("tool_failures_are_results", "err_refusal_as_success", "--text", "report")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)


@pytest.mark.parametrize(("text", "fails"), [
    ("Error: path outside allowed directories", True), ("error: no such table: x", True),
    ("Failed to open workbook", True), ("Invalid path: ../x", True), ("FileNotFoundError: [Errno 2] x", True),
    ("Error executing tool read: boom", True), ("Could not read x", True),
    ("Traceback (most recent call last):\n  File \"x.py\", line 1", True),
    ("3 lines, 1 error", False), ("Errors found: 0", False), ("error_rate,0.01", False), ("", False),
    ("Invalidation queue is empty", False), ("Database error: Parser Error: syntax error", True),
    ("No error: all rows loaded", False),
])
def test_failure_text_is_read_from_its_opening(text: str, fails: bool) -> None:
    from mcp_handbook.probes.errors._common import reported_failure
    response = {"result": {"content": [{"type": "text", "text": text}]}}
    assert (reported_failure(response) is not None) is fails, text


# -- ERR-006: the verdict and its evidence rest on what fails the rule ---------------------------------------

def test_deviations_the_rule_keeps_and_err_007s_silence_are_not_counted(run_probe) -> None:
    """The probe used to fail the Python SDK's defaults (an isError result for an unknown tool, a foreign cursor
    ignored by a server that never pages) and count the silence on bad JSON that ERR-007 already reports."""
    finding = run_probe("protocol_error_codes", "err_sdk_defaults")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    rows = "\n".join(finding.evidence)
    assert "tools/call of an unknown tool: tolerated" in rows and "never issued: tolerated" in rows, rows
    assert "malformed JSON: no answer (ERR-007 judges this; not counted here)" in rows, rows


def test_only_what_fails_the_rule_is_counted(run_probe) -> None:
    finding = run_probe("protocol_error_codes", "err_sdk_defaults", "--internal-for-bad-params")
    assert (finding.status, finding.reason) == ("FAIL", "wrong_error_code"), finding
    assert finding.summary.startswith("2 protocol fault(s) got the wrong answer"), finding.summary  # no name, bad args
    counted = [row for row in finding.evidence if "expected JSON-RPC error" in row]
    assert len(counted) == 2 and all("got code -32603" in row for row in counted), finding.evidence


# -- ERR-010: a validator's raw report is an exception's raw text -------------------------------------------

@pytest.mark.parametrize("where", ["message", "data"])
def test_a_zod_issue_list_as_a_protocol_error_fails(run_probe, where: str) -> None:
    """The probe used to pass zod's issue list as a JSON-RPC error's message, which the rule's summary forbids."""
    finding = run_probe("clean_protocol_errors", "err_zod_protocol", *(["--in-data"] if where == "data" else []))
    assert (finding.status, finding.reason) == ("FAIL", "raw_exception_text"), finding
    assert any("zod's raw report" in row and "invalid_type" in row for row in finding.evidence), finding.evidence


def test_a_protocol_error_written_for_the_client_passes(run_probe) -> None:
    finding = run_probe("clean_protocol_errors", "err_zod_protocol", "--clean")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)


# -- 8. ERR-005 without a tool that fails on purpose: plausible wrong values provoke the leak --------------------

@pytest.mark.parametrize(("leak", "reason", "shown"), [
    ("path", "leaked_internals", "[Errno 21] Is a directory"),
    ("runtime", "leaked_exception_text", "'NoneType' object has no attribute"),
])
def test_safe_failure_provokes_a_handler_leak(run_probe, leak: str, reason: str, shown: str) -> None:
    finding = run_probe("safe_tool_failure", "err_handler_leaks", "--leak", leak)
    assert (finding.status, finding.reason) == ("FAIL", reason), (finding.summary, finding.evidence)
    assert any("get_time(zone=" in row and shown in row for row in finding.evidence), finding.evidence


@pytest.mark.parametrize("leak", ["authored", "workspace"])
def test_safe_failure_leaves_authored_refusals_and_configured_paths_alone(run_probe, leak: str) -> None:
    finding = run_probe("safe_tool_failure", "err_handler_leaks", "--leak", leak)
    assert finding.status == "N/A", (finding.reason, finding.summary, finding.evidence)
    assert "showed no exception text" in finding.summary and "not checked" in finding.summary


@pytest.mark.parametrize(("text", "mark"), [
    ("Invalid timezone: [Errno 21] Is a directory: 'x'", "[Errno N]"), ("ValueError: bad", "class"),
    ("duckdb.duckdb.ParserException: near", "class"), ("TypeError: Cannot read properties of undefined (reading 'a')", "class"),
    ("Error: 'NoneType' object has no attribute 'x'", "runtime"), ("boom [type=int_parsing, input_value='a']", "pydantic"),
    ("Error: Unknown tool: x", ""), ("Database error: the table 'x' does not exist", ""), ("Invalid Error: code 3", ""),
    ("SQLITE_ERROR: near \"WHERE\": syntax error", ""),
])
def test_exception_text_is_told_from_an_authors_message(text: str, mark: str) -> None:
    from mcp_handbook.probes.errors._common import exception_text

    found = exception_text(text)
    assert bool(found) == bool(mark), found


# -- 9. ERR-004: a lax validator's coercions are a handler run on arguments the schema forbids -------------------

def test_validation_before_handler_fails_lax_coercion(run_probe) -> None:
    finding = run_probe("validate_before_handler", "err_lax_coercion", "--mode", "lax")
    assert (finding.status, finding.reason) == ("FAIL", "invalid_call_accepted"), (finding.summary, finding.evidence)
    shown = "\n".join(finding.evidence)
    assert "list_items with 'limit' given the string '3' where the schema says integer" in shown, shown
    assert "'limit' given the boolean true" in shown and "'verbose' given the string 'true'" in shown, shown


def test_validation_before_handler_passes_strict_types(run_probe) -> None:
    finding = run_probe("validate_before_handler", "err_lax_coercion", "--mode", "strict")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    assert "given the string '3'" in "\n".join(finding.evidence)


# -- 10. ERR-002 judges the handler's own failures: an unknown tool, SQL that does not parse ----------------------

def test_tool_failures_reads_unknown_tool_and_bad_sql_answers(run_probe) -> None:
    finding = run_probe("tool_failures_are_results", "err_sql_text_failures", "--mode", "text")
    assert (finding.status, finding.reason) == ("FAIL", "failure_reported_as_success"), (finding.summary, finding.evidence)
    shown = "\n".join(finding.evidence)
    assert "hb_no_such_tool (a tool never listed): a refusal sent as a success" in shown, shown
    assert "(SQL that does not parse): a refusal sent as a success" in shown and "Database error:" in shown, shown


def test_tool_failures_passes_flagged_sql_failures(run_probe) -> None:
    finding = run_probe("tool_failures_are_results", "err_sql_text_failures", "--mode", "flagged")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    assert any("SQL that does not parse" in row for row in finding.evidence), finding.evidence


# -- 11. UX-015 asks a SQL tool for a large result, and a refusal is no ordinary answer -----------------------------

@pytest.mark.parametrize(("cap", "status"), [("0", "FAIL"), ("100", "PASS")])
def test_output_budget_asks_a_sql_tool_for_many_rows(run_probe, cap: str, status: str) -> None:
    finding = run_probe("output_budget", "err_sql_text_failures", "--cap", cap)
    assert finding.status == status, (finding.reason, finding.summary, finding.evidence)
    if status == "FAIL":
        assert finding.reason == "over_budget" and "WITH RECURS" in finding.evidence[0], finding.evidence
    assert "Database error" not in "\n".join(finding.evidence)
