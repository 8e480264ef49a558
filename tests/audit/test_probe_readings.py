"""Probe readings an independent review found too generous, each against a small server that shows it."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import pytest

from mcp_handbook.probes import PROBES, Target
from mcp_handbook.probes.tool_definitions.schema_refs import outside_refs
from mcp_handbook.verify import minimal_env

QUIRKS = Path(__file__).resolve().parent / "quirks"


@pytest.mark.parametrize(("announce", "status"), [("start", "FAIL"), ("change", "PASS")])
def test_a_list_changed_sent_before_the_first_listing_does_not_announce_a_later_change(
        tmp_path: Path, announce: str, status: str) -> None:
    canary = f"hb-canary-{secrets.token_hex(8)}"
    target = Target(argv=[sys.executable, str(QUIRKS / "list_changed_early.py"), "--announce", announce], workspace=tmp_path,
                    env=minimal_env(home=tmp_path, HB_CANARY=canary), canary=canary, allow_tool_calls=frozenset(), timeout=3.0)
    try:
        finding = PROBES["definitions_stable_in_session"].run(target)
    finally:
        target.stop_all()
    assert finding.status == status, finding
    if status == "FAIL":
        assert finding.reason == "definition_changed_silently"


def test_a_reference_in_a_property_named_like_a_data_keyword_is_read() -> None:
    schema = {"type": "object", "properties": {"default": {"$ref": "https://example.invalid/s.json"},
                                               "mode": {"type": "string", "default": {"$ref": "not a reference: data"}}}}
    assert outside_refs(schema, "t") == [("t.properties.default.$ref", "https://example.invalid/s.json")]
