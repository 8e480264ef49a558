"""The build's two savings: highlighted code blocks kept on disk by the hash of their inputs, and finished HTML
(facts and proof panels, widgets) put into a page only after Markdown and the search index are done with it.

Each must change nothing a reader sees: the tests build small sites with and without them and compare bytes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config

from mcp_handbook.site import highlight_cache
from mcp_handbook.site.highlight_cache import HighlightCache, install
from mcp_handbook.site.state import SiteData

PAGE = '''# Blocks

```python hl_lines="2"
def echo(text: str) -> str:
    return text
```

Some prose.

```python title="server.py"
import sys
print("ready", file=sys.stderr)
```

```json
{"jsonrpc": "2.0", "id": 1}
```

```python hl_lines="2"
def echo(text: str) -> str:
    return text
```
'''
BLOCKS = 4


def _project(tmp_path: Path, highlight: str = "pymdownx.highlight") -> Path:
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "index.md").write_text(PAGE, encoding="utf-8")
    (project / "mkdocs.yml").write_text(
        f"site_name: t\nmarkdown_extensions:\n  - {highlight}\n  - pymdownx.superfences\n", encoding="utf-8",
    )
    return project


def _build(project: Path, site: Path, *, cached: bool) -> tuple[str, HighlightCache | None]:
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(site))
    cache = install(config) if cached else None
    build(config)
    if cache is not None:
        cache.save()  # what the handbook's hook does when the build ends
    page = (site / "index.html").read_text(encoding="utf-8")
    return re.sub(r"Build Date UTC : [^\n]*", "", page), cache  # the theme stamps the time of the build


def test_cached_builds_write_the_same_page_and_the_second_highlights_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    project = _project(tmp_path)
    plain, _ = _build(project, tmp_path / "plain", cached=False)
    cold, first = _build(project, tmp_path / "cold", cached=True)
    warm, second = _build(project, tmp_path / "warm", cached=True)
    assert first is not None and second is not None
    assert 'class="hll"' in plain and "server.py" in plain, "the page has a marked line and a titled block"
    assert cold == plain and warm == plain
    assert (first.hits, first.misses) == (1, BLOCKS - 1), "the repeated block is highlighted once"
    assert (second.hits, second.misses) == (BLOCKS, 0)
    folder = tmp_path / "cache" / "mcp-handbook" / "highlight"
    packs = list(folder.iterdir())
    assert [p.name.startswith("pack-") and p.suffix == ".json" for p in packs] == [True], "one pack, no temporary file"
    assert len(json.loads(packs[0].read_text(encoding="utf-8"))) == BLOCKS - 1


def test_a_cache_folder_that_cannot_be_written_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would go", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    project = _project(tmp_path)
    plain, _ = _build(project, tmp_path / "plain", cached=False)
    page, cache = _build(project, tmp_path / "site", cached=True)
    assert cache is not None and page == plain
    assert (cache.hits, cache.misses) == (1, BLOCKS - 1), "only the repeated block is reused, from this build's memory"
    assert blocked.read_text(encoding="utf-8") == "a file where the cache folder would go"


@pytest.mark.parametrize(
    "highlight", ["{pymdownx.highlight: {linenums: true}}", "{pymdownx.highlight: {anchor_linenums: true}}",
                  "{pymdownx.highlight: {line_spans: __span}}"],
)
def test_no_cache_when_a_block_is_numbered_by_its_place_in_the_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, highlight: str) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("MCP_HANDBOOK_CACHE", raising=False)
    config = load_config(str(_project(tmp_path, highlight) / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    assert install(config) is None
    assert "custom_fences" not in config["mdx_configs"].get("pymdownx.superfences", {})


def test_no_cache_when_turned_off_or_when_another_fence_takes_every_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = _project(tmp_path)
    monkeypatch.setenv("MCP_HANDBOOK_CACHE", "off")
    assert install(load_config(str(project / "mkdocs.yml"), site_dir=str(tmp_path / "site"))) is None
    monkeypatch.delenv("MCP_HANDBOOK_CACHE")
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    assert install(config) is not None
    assert install(config) is None, "a second install finds the first one's fence and adds none"
    assert len(config["mdx_configs"]["pymdownx.superfences"]["custom_fences"]) == 1


class _Pretend(HighlightCache):
    """A cache whose highlighter is a stand-in: the tests of its storage need no Markdown."""

    @staticmethod
    def _highlight(src: str, language: str, options: dict[str, Any], md: Any, kwargs: dict[str, Any]) -> str:
        return f"<pre>{src}</pre>"


def _one_build(folder: Path, *sources: str) -> _Pretend:
    cache = _Pretend(folder, {"highlight": {}})
    for src in sources:
        cache.format(src, "python", "highlight", {}, md=None, classes=[], id_value="", attrs={})
    cache.save()
    return cache


def _stored(folder: Path) -> dict[str, str]:
    blocks: dict[str, str] = {}
    for pack in folder.glob("pack-*.json"):
        blocks.update(json.loads(pack.read_text(encoding="utf-8")))
    return blocks


def test_packs_are_merged_before_they_pile_up_and_a_merge_keeps_what_the_build_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "highlight"
    folder.mkdir()
    (folder / f"{'0' * 64}.html").write_text("<pre>a block kept the old way, one file each</pre>", encoding="utf-8")
    for n in range(highlight_cache.MOST_PACKS):
        _one_build(folder, "shared = 1\n", f"block_{n} = {n}\n")
    assert len(list(folder.glob("pack-*.json"))) == highlight_cache.MOST_PACKS
    assert (_one_build(folder, "shared = 1\n").hits, len(list(folder.glob("pack-*.json")))) == (1, highlight_cache.MOST_PACKS), \
        "a build that highlighted nothing writes nothing"
    merging = _one_build(folder, "shared = 1\n", "newest = 1\n")
    assert (merging.hits, merging.misses) == (1, 1)
    assert [p.name.startswith("pack-") for p in folder.iterdir()] == [True], "the packs it read are merged into one, old files gone"
    assert len(_stored(folder)) == highlight_cache.MOST_PACKS + 2, "every block is still there: far fewer than KEEP"
    assert _one_build(folder, "shared = 1\n", "newest = 1\n", "block_0 = 0\n").hits == 3

    monkeypatch.setattr(highlight_cache, "KEEP", 3)
    _one_build(folder, "shared = 1\n", "another = 1\n")
    kept = set(_stored(folder).values())
    assert {"<pre>shared = 1\n</pre>", "<pre>another = 1\n</pre>"} <= kept and len(kept) == 3, \
        "over KEEP: the blocks this build used, then others up to KEEP"
    assert not [p for p in folder.iterdir() if not p.name.startswith("pack-")], "no temporary file is left behind"


def test_a_pack_that_cannot_be_read_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "highlight"
    _one_build(folder, "x = 1\n")
    (folder / "pack-broken.json").write_text('{"half a pack', encoding="utf-8")
    (folder / "pack-list.json").write_text("[1, 2]", encoding="utf-8")
    again = _one_build(folder, "x = 1\n", "y = 2\n")
    assert (again.hits, again.misses) == (1, 1)
    assert _stored_readable(folder) == {"<pre>x = 1\n</pre>", "<pre>y = 2\n</pre>"}


def _stored_readable(folder: Path) -> set[str]:
    found: set[str] = set()
    for pack in folder.glob("pack-*.json"):
        try:
            blocks = json.loads(pack.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(blocks, dict):
            found.update(blocks.values())
    return found


def _key(cache: HighlightCache, src: str = "x = 1\n", language: str = "python", options: dict[str, Any] | None = None) -> str:
    return cache.key(src, language, options or {}, {"classes": [], "id_value": "", "attrs": {}})


def test_the_key_follows_the_code_the_language_the_options_and_the_settings(tmp_path: Path) -> None:
    cache = HighlightCache(tmp_path, {"highlight": {}})
    base = _key(cache)
    assert _key(HighlightCache(tmp_path, {"highlight": {}})) == base
    assert _key(cache, src="x = 2\n") != base
    assert _key(cache, language="text") != base
    assert _key(cache, options={"hl_lines": "1"}) != base
    assert _key(HighlightCache(tmp_path, {"highlight": {"pygments_style": "monokai"}})) != base


def test_the_key_is_the_same_in_another_process_when_a_setting_is_a_function(tmp_path: Path) -> None:
    """A function among the settings (another custom fence's formatter) enters the key by name, not by address."""
    script = (
        "import json, sys; from pathlib import Path; from mcp_handbook.site.highlight_cache import HighlightCache; "
        "from mcp_handbook.site.state import load_site_data as fn; "
        "c = HighlightCache(Path(sys.argv[1]), {'superfences': {'custom_fences': [{'format': fn}]}}); "
        "print(c.key('x = 1', 'python', {}, {'classes': [], 'id_value': '', 'attrs': {}}))"
    )
    keys = {subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True, timeout=60).stdout
            for _ in range(2)}
    assert len(keys) == 1 and len(keys.pop().strip()) == 64


def test_deferred_html_comes_back_in_place_without_the_search_only_attribute() -> None:
    data = SiteData(corpus=None, defer_html=True)  # type: ignore[arg-type]  # late/put_late never read the corpus
    panel = '<div class="hb-proof" data-search-exclude="true"><p>What the probe saw</p></div>\n'
    marker = data.late("rules/a.md", panel)
    second = data.late("rules/a.md", "<dl class=\"hb-meta\"></dl>")
    assert marker == "<!-- hb-late:0 -->\n" and second == "<!-- hb-late:1 -->"
    assert data.late("rules/a.md", "  \n") == "  \n", "nothing to defer"
    html = f"<h1>A</h1>\n{marker.strip()}\n<p>prose</p>\n{second}"
    assert data.put_late("rules/a.md", html) == (
        '<h1>A</h1>\n<div class="hb-proof"><p>What the probe saw</p></div>\n<p>prose</p>\n<dl class="hb-meta"></dl>'
    )
    assert data.put_late("rules/a.md", "<!-- hb-late:0 -->") == "<!-- hb-late:0 -->", "each page's pieces go in once"
    assert "rules/a.md" not in data.deferred


def test_without_the_hooks_nothing_is_deferred() -> None:
    data = SiteData(corpus=None)  # type: ignore[arg-type]
    panel = '<div class="hb-proof" data-search-exclude="true"></div>\n'
    assert data.late("rules/a.md", panel) == panel and not data.deferred
