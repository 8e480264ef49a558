"""The parsed content kept on disk is never stale, never in the checkout, and never needed: any change to what
was parsed is a new entry, a broken entry is parsed again, and it can be turned off."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.parse import parse_content
from mcp_handbook.parse_cache import parse_cached


KEPT_GATE = "transport"
"""The one gate a trimmed copy keeps: what the cache does is the same for one gate as for eight, and a parse of
one gate costs a sixth of the whole (``full_handbook`` is the whole doctrine, for the round trip)."""


def _copy(tmp_path: Path, project_root: Path, monkeypatch: pytest.MonkeyPatch, *, whole: bool) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    dest = tmp_path / "hb"
    dest.mkdir()

    def other_gates(folder: str, names: list[str]) -> list[str]:
        return [] if whole or Path(folder).name != "rules" else [n for n in names if n != KEPT_GATE]

    shutil.copytree(project_root / "content", dest / "content", ignore=other_gates)
    shutil.copy(project_root / "mkdocs.yml", dest / "mkdocs.yml")
    return dest


@pytest.fixture
def handbook(tmp_path: Path, project_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the handbook with one gate's rules, its cache in a fresh folder."""
    return _copy(tmp_path, project_root, monkeypatch, whole=False)


@pytest.fixture
def full_handbook(tmp_path: Path, project_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the whole handbook, its cache in a fresh folder."""
    return _copy(tmp_path, project_root, monkeypatch, whole=True)


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "mcp-handbook").glob("corpus-*.pickle"))


def test_a_cached_corpus_is_the_parsed_one(full_handbook: Path, tmp_path: Path) -> None:
    handbook = full_handbook
    first = parse_cached(handbook)
    assert len(_entries(tmp_path)) == 1
    again = parse_cached(handbook)
    fresh = parse_content(handbook)
    assert len(fresh.rules) > 100  # the whole doctrine round-trips, not a trimmed copy
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


def test_a_copy_elsewhere_is_served_from_the_cache_with_its_own_root(handbook: Path, tmp_path: Path) -> None:
    """Where a checkout is is not part of the key: the tests copy the handbook hundreds of times, and each copy with
    the same files is one parse. The corpus served names the copy's root, so every path resolves in the copy."""
    first = parse_cached(handbook)
    copy = tmp_path / "elsewhere" / "hb"
    shutil.copytree(handbook, copy)
    served = parse_cached(copy)
    assert len(_entries(tmp_path)) == 1
    assert served.root == copy.resolve() and first.root == handbook.resolve()
    assert served == parse_content(copy)


def test_a_link_that_leads_elsewhere_is_another_entry(handbook: Path, tmp_path: Path) -> None:
    """A symbolic link's target decides whether a relative link leaves content/, so it is part of the key."""
    outside = tmp_path / "outside.md"
    outside.write_text("# outside\n", encoding="utf-8")
    inside = handbook / "content" / "elsewhere.md"
    inside.write_text("# outside\n", encoding="utf-8")
    link = handbook / "content" / "rules" / "transport" / "notes.md"
    link.symlink_to(inside)
    parse_cached(handbook)
    link.unlink()
    link.symlink_to(outside)  # the same bytes, another place
    parse_cached(handbook)
    assert len(_entries(tmp_path)) == 2


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


def test_parser_code_edited_while_a_process_runs_never_keys_that_process_s_results(
        handbook: Path, tmp_path: Path, project_root: Path) -> None:
    """A long run (the test suite) that imported the parser, then parses after someone edited the parser, must
    store what its old code found under the old code's key: the next process, with the new code, parses again."""
    import subprocess
    import sys

    package = tmp_path / "pkg"
    shutil.copytree(project_root / "tools" / "mcp_handbook", package / "mcp_handbook",
                    ignore=shutil.ignore_patterns("__pycache__"))
    rule = next(p for p in sorted((handbook / "content" / "rules").rglob("*.md"))
                if "\nqualifiers:" not in p.read_text(encoding="utf-8"))
    text = rule.read_text(encoding="utf-8")
    rule.write_text(text.replace("\nseverity:", "\nqualifiers:\n  - {kind: conditional, applies_to: hb-new-condition}\nseverity:", 1),
                    encoding="utf-8")
    fields = package / "mcp_handbook" / "fields.py"
    edit = ("import pathlib, sys\n"
            "from mcp_handbook.parse_cache import parse_cached\n"  # the old parser is loaded now
            f"p = pathlib.Path({str(fields)!r})\n"
            "s = p.read_text()\n"
            "p.write_text(s.replace('CONDITIONS: dict[str, str] = {', 'CONDITIONS: dict[str, str] = {\\n    "
            "\"hb-new-condition\": \"a condition added while this ran\",', 1))\n"
            f"c = parse_cached(pathlib.Path({str(handbook)!r}))\n"
            "print(sum('hb-new-condition' in str(d) for d in c.diagnostics))\n")
    fresh = (f"import pathlib\nfrom mcp_handbook.parse_cache import parse_cached\n"
             f"c = parse_cached(pathlib.Path({str(handbook)!r}))\n"
             "print(sum('hb-new-condition' in str(d) for d in c.diagnostics))\n")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(package), "XDG_CACHE_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    assert "CONDITIONS: dict[str, str] = {" in fields.read_text(encoding="utf-8")
    old = subprocess.run([sys.executable, "-c", edit], env=env, capture_output=True, text=True, timeout=60)
    assert old.returncode == 0, old.stderr
    assert old.stdout.strip() == "1"  # the old code did not know the condition
    new = subprocess.run([sys.executable, "-c", fresh], env=env, capture_output=True, text=True, timeout=60)
    assert new.returncode == 0, new.stderr
    assert new.stdout.strip() == "0", "the new code was served the old code's diagnostics from the cache"
