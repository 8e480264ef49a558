"""Highlighted code blocks kept on disk by the hash of their inputs, so a build highlights only what changed.

Pygments is about a fifth of a plain mkdocs build of the handbook, and the
code of a rule changes far less often than the site is built. The hook adds
one SuperFences custom fence named ``*`` (the documented way to take over
every fence); its formatter looks the block up by a hash of everything the
highlighted HTML depends on (the code, its language and fence options, the
highlight settings, the versions of Pygments, pymdown-extensions and
Python-Markdown) and, when the block is new, asks SuperFences' own
highlighter for it, as pymdown-extensions' author advises for a custom fence
that keeps the normal highlighting (facelessuser/pymdown-extensions,
discussion 1291). Nothing is patched.

The files sit beside the parse cache (``parse_cache.cache_dir()``:
``$XDG_CACHE_HOME/mcp-handbook/highlight``), never in the checkout;
``MCP_HANDBOOK_CACHE=off`` turns both off. A file that cannot be read or
written is ignored: the block is highlighted as usual.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pymdownx.superfences import highlight_validator

from ..parse_cache import cache_dir

FOLDER = "highlight"
KEEP = 4096
"""Blocks kept: the handbook has a few hundred; copies with other code (tests, benchmarks) add their own."""
ORDER_DEPENDENT = ("linenums", "line_spans", "line_anchors", "anchor_linenums")
"""Highlight settings whose output names a block by its place in the page (or, for html titles, by the page's
own placeholders): with any of them on, a block's HTML is not a function of its inputs, so nothing is cached."""
PASS_THROUGH_OPTIONS = ("linenums", "title_mode")
"""Fence options with the same effect for one block: such a block is highlighted as usual, not cached."""


def _library_versions() -> str:
    found = []
    for name in ("pygments", "pymdown-extensions", "markdown"):
        try:
            found.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            found.append(f"{name}=?")
    return " ".join(found)


def _named(value: Any) -> str:
    """How a setting that is not plain data (a function in another custom fence) enters a key: by its name,
    never by its address, which differs in every process."""
    return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', type(value).__name__)}"


class HighlightCache:
    """A SuperFences formatter that reuses the HTML of a block it highlighted before."""

    def __init__(self, folder: Path, settings: dict[str, Any]) -> None:
        self.folder = folder
        self.salt = json.dumps([_library_versions(), settings], sort_keys=True, default=_named)
        self.hits = 0
        self.misses = 0

    def key(self, src: str, language: str, options: dict[str, Any], kwargs: dict[str, Any]) -> str:
        """The hash of everything a block's HTML depends on."""
        inputs = [self.salt, language, options, kwargs.get("classes"), kwargs.get("id_value"), kwargs.get("attrs"), src]
        return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=_named).encode("utf-8")).hexdigest()

    def format(self, src: str, language: str, class_name: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
        """The custom fence's ``format``: the stored HTML of this block, or SuperFences' highlighting of it, stored."""
        if any(name in options for name in PASS_THROUGH_OPTIONS):
            return self._highlight(src, language, options, md, kwargs)
        path = self.folder / f"{self.key(src, language, options, kwargs)}.html"
        try:
            html = path.read_text(encoding="utf-8")
            os.utime(path)  # recently used: kept when older blocks are pruned
            self.hits += 1
            return html
        except (OSError, UnicodeDecodeError):
            pass
        html = self._highlight(src, language, options, md, kwargs)
        self.misses += 1
        self._store(path, html)
        return html

    @staticmethod
    def _highlight(src: str, language: str, options: dict[str, Any], md: Any, kwargs: dict[str, Any]) -> str:
        fences = md.preprocessors["fenced_code_block"]  # SuperFences' own block processor, by its registered name
        return fences.highlight(src=src, language=language, options=dict(options), md=md, **kwargs)

    def _store(self, path: Path, html: str) -> None:
        """Write atomically: a build running beside this one never reads half a file."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=self.folder, prefix=".block-", delete=False) as tmp:
                tmp.write(html)
            os.replace(tmp.name, path)
        except OSError:
            try:
                os.unlink(tmp.name)
            except (OSError, UnboundLocalError):
                pass

    def prune(self) -> None:
        """Keep the newest :data:`KEEP` blocks (called once a build has written new ones)."""
        if not self.misses:
            return
        try:
            entries = sorted(self.folder.glob("*.html"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in entries[KEEP:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass


def install(config: Any) -> HighlightCache | None:
    """Add the caching fence to this build's SuperFences settings; None when caching is off or cannot be exact.

    It is not installed when the cache is turned off, when SuperFences is not used, when another custom
    fence already takes ``*``, or when a highlight setting makes a block's HTML depend on its place in the page.
    """
    folder = cache_dir()
    if folder is None or "pymdownx.superfences" not in config["markdown_extensions"]:
        return None
    configs = config["mdx_configs"]
    highlight = dict(configs.get("pymdownx.highlight") or {})
    if any(highlight.get(name) for name in ORDER_DEPENDENT) or highlight.get("title_mode") == "html":
        return None
    superfences = configs.setdefault("pymdownx.superfences", {})
    fences = list(superfences.get("custom_fences") or [])
    if any(fence.get("name") == "*" for fence in fences):
        return None
    cache = HighlightCache(folder / FOLDER, {"highlight": highlight, "superfences": superfences})
    fences.append({"name": "*", "class": "highlight", "format": cache.format, "validator": highlight_validator})
    superfences["custom_fences"] = fences
    return cache
