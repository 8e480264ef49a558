"""How many proofs the pytest plugin runs at once."""

from __future__ import annotations

import pytest

from mcp_handbook import pytest_plugin


@pytest.mark.parametrize("cores, workers", [(None, 4), (1, 4), (2, 8), (3, 8), (16, 8)])
def test_four_proofs_per_core_at_most_eight(monkeypatch: pytest.MonkeyPatch, cores: int | None, workers: int) -> None:
    monkeypatch.setattr(pytest_plugin.os, "cpu_count", lambda: cores)
    assert pytest_plugin.default_workers() == workers
