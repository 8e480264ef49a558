"""The seconds each proof took, kept only to start the longest first: never in the checkout, never required."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_handbook.proving import proof_times


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    return tmp_path / "cache" / "mcp-handbook"


def test_untimed_blocks_start_first_then_the_longest() -> None:
    seconds = {"A.wrong1": 0.5, "B.wrong1": 6.4, "C.correct1": 0.5}
    order = proof_times.longest_first(["A.wrong1", "C.correct1", "NEW.wrong1", "B.wrong1"], seconds, name=str)
    assert order == ["NEW.wrong1", "B.wrong1", "A.wrong1", "C.correct1"]  # ties keep their file order


def test_a_run_s_seconds_are_merged_into_the_kept_ones(cache: Path) -> None:
    proof_times.save({"A.wrong1": 1.0, "B.wrong1": 2.0})
    proof_times.save({"B.wrong1": 3.0})
    assert proof_times.load() == {"A.wrong1": 1.0, "B.wrong1": 3.0}
    assert [p.name for p in cache.iterdir()] == [proof_times.FILE]  # no temporary file left behind


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"A.wrong1": "slow"}'])
def test_a_damaged_file_is_no_times_not_an_error(cache: Path, text: str) -> None:
    cache.mkdir(parents=True)
    (cache / proof_times.FILE).write_text(text, encoding="utf-8")
    assert proof_times.load() == {}


def test_turned_off_with_the_parse_cache(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    monkeypatch.setenv("MCP_HANDBOOK_CACHE", "off")
    proof_times.save({"A.wrong1": 1.0})
    assert proof_times.load() == {} and not cache.exists()
