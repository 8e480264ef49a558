"""The parsed content kept on disk is never stale, never in the checkout, and never needed: any change to what
was parsed is a new entry, a broken entry is parsed again, and it can be turned off."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.parse import parse_content
from mcp_handbook.parse_cache import parse_cached


@pytest.fixture
def handbook(tmp_path: Path, project_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    dest = tmp_path / "hb"
    dest.mkdir()
    shutil.copytree(project_root / "content", dest / "content")
    shutil.copy(project_root / "mkdocs.yml", dest / "mkdocs.yml")
    return dest


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "mcp-handbook").glob("corpus-*.pickle"))


def test_a_cached_corpus_is_the_parsed_one(handbook: Path, tmp_path: Path) -> None:
    first = parse_cached(handbook)
    assert len(_entries(tmp_path)) == 1
    again = parse_cached(handbook)
    fresh = parse_content(handbook)
    assert again == fresh and first == fresh
    assert not any(p.suffix == ".pickle" for p in handbook.rglob("*"))  # nothing in the checkout


def test_an_edit_anywhere_in_content_is_parsed_not_served_from_the_cache(handbook: Path, tmp_path: Path) -> None:
    load_corpus(handbook)
    rule = handbook / "content" / "rules" / "transport" / "frame-size-cap.md"
    rule.write_text(rule.read_text(encoding="utf-8").replace("severity: medium", "severity: severe", 1), encoding="utf-8")
    corpus = load_corpus(handbook)
    assert any(d.code == "HB012" and "severity" in d.message for d in corpus.diagnostics), corpus.diagnostics
    (handbook / "content" / "rules" / "transport" / "notes.txt").write_text("not a rule, but content\n")
    load_corpus(handbook)
    assert len(_entries(tmp_path)) == 3  # three contents, three entries


def test_a_broken_entry_is_parsed_again(handbook: Path, tmp_path: Path) -> None:
    expected = parse_cached(handbook)
    [entry] = _entries(tmp_path)
    entry.write_bytes(b"not a pickle")
    assert parse_cached(handbook) == expected
    assert entry.read_bytes() != b"not a pickle"  # and written again


def test_it_can_be_turned_off(handbook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_HANDBOOK_CACHE", "off")
    assert parse_cached(handbook) == parse_content(handbook)
    assert _entries(tmp_path) == []
