"""What a proof records must not differ between runs: the scrubs that take random values out of evidence."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mcp_handbook.probes.security.ssrf import Listener


@pytest.mark.parametrize(("text", "expected"), [
    ("<untrusted-9f3a61c0b2d4>", "<untrusted-…>"),
    ("<untrusted-763553578754>", "<untrusted-…>"),  # a boundary that happens to be all digits (CI, once)
    ("http://2130706433:41234/hb-ssrf/decimal", "http://2130706433:PORT/hb-ssrf/decimal"),  # an address stays
    ("ref 0a1b2c3d4e", "ref …"),
])
def test_the_ssrf_listener_scrubs_random_hex_and_keeps_addresses(text: str, expected: str) -> None:
    assert Listener.scrub(SimpleNamespace(port=41234), text) == expected  # type: ignore[arg-type]
