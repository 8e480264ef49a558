"""Probe readings an independent review found too generous, each against a small server that shows it."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import pytest

from mcp_handbook.probes import PROBES, Target
from mcp_handbook.probes.tool_definitions.self_contained_schemas import outside_refs
from mcp_handbook.proving.verify import minimal_env

QUIRKS = Path(__file__).resolve().parent / "quirks"


@pytest.mark.parametrize(("announce", "status"), [("start", "FAIL"), ("change", "PASS")])
def test_a_list_changed_sent_before_the_first_listing_does_not_announce_a_later_change(
        tmp_path: Path, announce: str, status: str) -> None:
    canary = f"hb-canary-{secrets.token_hex(8)}"
    target = Target(argv=[sys.executable, str(QUIRKS / "list_changed_early.py"), "--announce", announce], workspace=tmp_path,
                    env=minimal_env(home=tmp_path, HB_CANARY=canary), canary=canary, allow_tool_calls=frozenset(), timeout=3.0)
    try:
        finding = PROBES["announce_definition_changes"].run(target)
    finally:
        target.stop_all()
    assert finding.status == status, finding
    if status == "FAIL":
        assert finding.reason == "definition_changed_silently"


def test_a_reference_in_a_property_named_like_a_data_keyword_is_read() -> None:
    schema = {"type": "object", "properties": {"default": {"$ref": "https://example.invalid/s.json"},
                                               "mode": {"type": "string", "default": {"$ref": "not a reference: data"}}}}
    assert outside_refs(schema, "t") == [("t.properties.default.$ref", "https://example.invalid/s.json")]


@pytest.mark.parametrize(("args", "status"), [((), "FAIL"), (("--redact-keys",), "PASS")])
def test_masking_its_own_environment_does_not_pass_for_redacting_by_key(tmp_path: Path, args: tuple[str, ...],
                                                                           status: str) -> None:
    """SEC-008: the canary is in the server's environment, so a server that masks its environment values hides
    it without redacting anything by key. The probe sends a value the server has never seen."""
    canary = f"hb-canary-{secrets.token_hex(8)}"
    target = Target(argv=[sys.executable, str(QUIRKS / "sec_log_env_masked.py"), *args], workspace=tmp_path,
                    env=minimal_env(home=tmp_path, HB_CANARY=canary, API_TOKEN=canary), canary=canary,
                    allow_tool_calls=frozenset(), timeout=3.0)
    try:
        finding = PROBES["redact_secrets_in_logs"].run(target)
    finally:
        target.stop_all()
    assert finding.status == status, finding
    if status == "FAIL":
        assert finding.reason == "secret_in_log"
        assert "<SECRET>" in "\n".join(finding.evidence) and canary not in "\n".join(finding.evidence)


def test_a_batch_is_not_held_against_a_server_that_negotiated_2025_03_26(tmp_path: Path) -> None:
    """ERR-007: 2025-03-26 requires a server to receive batches, so a batch served in that era is right, not a
    missing -32600."""
    canary = f"hb-canary-{secrets.token_hex(8)}"
    target = Target(argv=[sys.executable, str(QUIRKS / "err_batch_2025_03_26.py")], workspace=tmp_path,
                    env=minimal_env(home=tmp_path, HB_CANARY=canary), canary=canary, allow_tool_calls=frozenset(),
                    timeout=3.0)
    try:
        finding = PROBES["malformed_message_errors"].run(target)
    finally:
        target.stop_all()
    assert finding.status == "PASS", finding
    assert any("batch" in line and "2025-03-26" in line for line in finding.evidence), finding.evidence


@pytest.mark.parametrize(("version", "allowed"), [("2024-11-05", True), ("2025-03-26", True), ("2025-06-18", False),
                                                  ("2025-11-25", False), ("2026-07-28", False), (None, False),
                                                  ("garbage", False)])
def test_the_batch_is_judged_only_where_batching_was_removed(version: object, allowed: bool) -> None:
    from mcp_handbook.probes.errors.malformed_message_errors import batches_allowed

    assert batches_allowed(version) is allowed


def test_a_parameter_named_like_a_keyword_of_fill_arguments_is_still_overridden() -> None:
    """A computed override (the program parameter a probe found) named ``skip`` or ``tool`` reaches the call."""
    from mcp_handbook.probes.arguments import fill_arguments

    tool = {"inputSchema": {"type": "object", "required": ["skip", "tool"],
                            "properties": {"skip": {"type": "string"}, "tool": {"type": "string"}}}}
    assert fill_arguments(tool, {"skip": "printenv", "tool": "env"}) == {"skip": "printenv", "tool": "env"}
