"""Probes of the tool surface against quirks of real third-party servers: naming conventions, tools that are
slow by design, SQL and code tools, shell tools under other names, and children that inherit the environment.

Each test starts a small fixture server from ``quirks/`` and runs one probe on it directly, as the auditor
does (only read-only tools callable unless the test says otherwise).
"""

from __future__ import annotations

import secrets
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_handbook.probes import PROBES, Finding, Target

QUIRKS = Path(__file__).resolve().parent / "quirks"


@pytest.fixture
def run_probe(tmp_path: Path) -> Iterator:
    """``run_probe(probe, quirk, *args, timeout=, allow=)``: the probe's finding against ``quirks/QUIRK.py``
    (``{workspace}`` in ``args`` is the fresh workspace, which is then the served root, as in an audit)."""
    targets: list[Target] = []

    def run(name: str, quirk: str, *args: str, timeout: float = 3.0, allow: frozenset[str] | None = frozenset()) -> Finding:
        canary = f"hb-canary-{secrets.token_hex(8)}"
        workspace = tmp_path / f"ws{len(targets)}"
        workspace.mkdir()
        served = workspace if any("{workspace}" in a for a in args) else None  # as the auditor reads its command
        args = tuple(a.replace("{workspace}", str(workspace)) for a in args)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
               "HB_CANARY": canary, "API_TOKEN": canary}
        target = Target(argv=[sys.executable, str(QUIRKS / f"{quirk}.py"), *args], workspace=workspace, env=env,
                        canary=canary, allow_tool_calls=allow, timeout=timeout, root=served)
        targets.append(target)
        finding = PROBES[name].run(target)
        assert canary not in repr(finding), "evidence must mask the canary"
        return finding

    yield run
    for target in targets:
        target.stop_all()


# -- 1. naming: one consistent convention is not a breach of the house style ------------------------------------

@pytest.mark.parametrize("style, shown", [("camel", "camelCase"), ("kebab", "kebab-case")])
def test_one_consistent_non_snake_convention_is_not_applicable(run_probe, style: str, shown: str) -> None:
    finding = run_probe("tool_names_snake_case", "name_conventions", "--style", style)
    assert finding.status == "N/A", finding
    assert shown in finding.summary and "consistent" in finding.summary


def test_mixed_conventions_on_one_server_fail(run_probe) -> None:
    finding = run_probe("tool_names_snake_case", "name_conventions", "--style", "mixed")
    assert (finding.status, finding.reason) == ("FAIL", "name_not_snake_case"), finding
    assert "mix" in finding.summary
    assert any("getFile" in row for row in finding.evidence) and any("search-files" in row for row in finding.evidence)


# -- 2. a tool slow by design is not checked; the others are judged ---------------------------------------------

def test_a_slow_listing_tool_is_not_checked_and_the_fast_one_is_judged(run_probe) -> None:
    finding = run_probe("capped_list_results", "ux_slow_listing", timeout=2.0)
    assert finding.status == "PASS", finding
    assert any("list_files" in row and "truncated" in row for row in finding.evidence)
    assert any(row.startswith("not checked: list_items did not answer within 4 s") for row in finding.evidence)


def test_a_slow_tool_does_not_hide_the_other_tools_errors(run_probe) -> None:
    finding = run_probe("error_next_step", "ux_slow_listing", timeout=2.0)
    assert finding.status == "PASS", finding
    assert any("list_files" in row for row in finding.evidence)
    assert any(row.startswith("not checked: list_items did not answer") for row in finding.evidence)


# -- 3. SQL, code and shell tools under common parameter names ---------------------------------------------------

def test_sql_and_code_statements_are_sent_and_caught_but_a_search_query_is_not_code(run_probe) -> None:
    finding = run_probe("no_code_evaluation", "sec_eval_tools", allow=None)
    assert (finding.status, finding.reason) == ("FAIL", "evaluated_payload"), finding
    for tool in ("read_query", "write_query", "run_python"):
        assert any(row.startswith(f"{tool}(") for row in finding.evidence), tool
    assert not any(row.startswith("search_notes(") for row in finding.evidence)


def test_a_query_the_tool_says_is_sql_is_a_free_form_selector_but_a_search_query_is_not(run_probe) -> None:
    finding = run_probe("single_purpose_tools", "sec_eval_tools")
    assert (finding.status, finding.reason) == ("FAIL", "free_form_selector"), finding
    assert finding.summary.startswith("1 of 4 tool(s)")
    assert any(row.startswith("write_query.inputSchema.properties.query") for row in finding.evidence)


def test_shell_tools_named_script_or_taking_an_argv_list_are_examined(run_probe) -> None:
    finding = run_probe("no_shell", "sec_shell_tools", allow=None)
    assert (finding.status, finding.reason) == ("FAIL", "shell_evaluated_argument"), finding
    assert any(row.startswith("run_shell(") for row in finding.evidence)
    assert any(row.startswith("shell_execute(") for row in finding.evidence)


# -- 4. a child's environment is read from outside, even when the tool prints nothing ------------------------

@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc/<pid>/environ (Linux)")
def test_a_silent_child_that_inherits_the_environment_is_seen_in_proc(run_probe) -> None:
    finding = run_probe("child_env_allowlist", "sec_child_env")
    assert (finding.status, finding.reason) == ("FAIL", "canary_reached_child"), finding
    assert any("sleep 1" in row and "pid " in row for row in finding.evidence)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc/<pid>/environ (Linux)")
def test_a_silent_child_with_an_allow_listed_environment_passes(run_probe) -> None:
    finding = run_probe("child_env_allowlist", "sec_child_env", "--clean")
    assert finding.status == "PASS", finding
    assert any("sleep 1" in row for row in finding.evidence)


# -- AUTH-005: a password that protects a file is data, one that logs in is a credential -----------------------

def test_a_document_protection_password_is_not_a_credential(run_probe) -> None:
    """Like excel-mcp-server's sheet and workbook protection (its tool says it is not security): the probe used
    to fail it HIGH."""
    finding = run_probe("no_credentials_in_tool_surface", "auth_passwords", "--set", "documents")
    assert finding.status == "PASS", (finding.reason, finding.summary, finding.evidence)
    rows = "\n".join(finding.evidence)
    assert "set_sheet_layout: /$defs/Protection/password is a document's password" in rows, rows
    assert "read_pdf: /password is a document's password" in rows, rows


@pytest.mark.parametrize("which", ["login", "account", "key"])
def test_a_password_for_a_service_and_a_key_are_still_credentials(run_probe, which: str) -> None:
    finding = run_probe("no_credentials_in_tool_surface", "auth_passwords", "--set", which)
    assert (finding.status, finding.reason) == ("FAIL", "credential_parameter"), finding


needs_git = pytest.mark.skipif(shutil.which("git", path="/usr/bin:/bin") is None, reason="needs git on PATH")


@needs_git
def test_a_child_of_a_few_milliseconds_started_by_name_in_a_real_repository_is_seen(run_probe) -> None:
    finding = run_probe("child_env_allowlist", "sec_quick_child", "--repository", "{workspace}")
    assert (finding.status, finding.reason) == ("FAIL", "canary_reached_child"), finding
    row = next(row for row in finding.evidence if row.startswith("child git "))
    assert "seen by its PATH stand-in" in row and "git rev-parse --git-dir" in row, row
    assert "API_TOKEN=<CANARY>" in row and "repo_status(" in row, row


@needs_git
def test_a_child_of_a_few_milliseconds_with_an_allow_listed_environment_passes(run_probe) -> None:
    finding = run_probe("child_env_allowlist", "sec_quick_child", "--repository", "{workspace}", "--clean")
    assert finding.status == "PASS", finding
    assert any(row.startswith("child git ") and "PATH stand-in" in row for row in finding.evidence), finding


def test_a_git_tool_given_no_root_starts_nothing_and_is_not_checked(run_probe) -> None:
    finding = run_probe("child_env_allowlist", "sec_quick_child", "--repository", "/nonexistent-hb")
    assert finding.status == "N/A" and finding.summary.startswith("not checked:"), finding


# -- 5. the secret is asked for in each tool's own language; a tool that may not be called is not checked ---------

@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="the SQL request reads /proc/self/environ (Linux)")
def test_a_sql_tool_that_reads_the_process_environment_fails_when_it_may_be_called(run_probe) -> None:
    finding = run_probe("no_secret_in_output", "sec_env_readers", allow=frozenset({"query", "run_code"}))
    assert (finding.status, finding.reason) == ("FAIL", "canary_in_output"), finding
    assert "request(s) for the process environment showed it" in finding.summary
    assert any(row.startswith("query(") and "asked in sql" in row and "readfile('/proc/self/environ')" in row
               and "<CANARY>" in row for row in finding.evidence), finding.evidence
    assert any(row.startswith("run_code(") and "asked in python" in row for row in finding.evidence)


def test_tools_that_evaluate_code_but_may_not_be_called_are_not_checked_never_passed(run_probe) -> None:
    finding = run_probe("no_secret_in_output", "sec_env_readers")
    assert finding.status == "N/A" and finding.summary.startswith("not checked:"), finding
    assert "--allow-tool-calls query run_code" in finding.summary


def test_a_sql_tool_that_cannot_read_the_environment_passes_when_asked(run_probe) -> None:
    finding = run_probe("no_secret_in_output", "sec_env_readers", "--no-fileio", allow=frozenset({"query"}))
    assert finding.status == "PASS", finding
    assert any(row.startswith("query(") and "asked in sql" in row for row in finding.evidence), finding.evidence


@needs_git
@pytest.mark.parametrize("clean", [False, True])
def test_a_quick_child_that_searches_the_server_path_is_seen_by_the_path_and_home_probe(run_probe, clean) -> None:
    """SEC-004: the child found its program through the server's PATH (even an allow-listed copy of it is the
    server's PATH, not a fixed one); without --clean it also got the server's HOME, with --clean none."""
    finding = run_probe("child_path_home", "sec_quick_child", "--repository", "{workspace}",
                        *(["--clean"] if clean else []))
    assert (finding.status, finding.reason) == ("FAIL", "planted_program_ran"), finding
    assert any(r.startswith("child git ") and "repo_status(" in r for r in finding.evidence), finding.evidence
    home = "the child has no HOME" if clean else "was copied from the server's environment"
    assert any(home in row for row in finding.evidence), finding.evidence
