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

The packs sit beside the parse cache (``parse_cache.cache_dir()``:
``$XDG_CACHE_HOME/mcp-handbook/highlight``), never in the checkout;
``MCP_HANDBOOK_CACHE=off`` turns both off. A file that cannot be read or
written is ignored: the block is highlighted as usual.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pymdownx.superfences import highlight_validator

from ..parse_cache import cache_dir

FOLDER = "highlight"
PACK_GLOB = "pack-*.json"
LEGACY_GLOB = "*.html"
"""One file per block, as earlier versions of this cache kept them: removed at the first merge."""
KEEP = 4096
"""Blocks kept: the handbook has a few hundred; copies with other code (tests, benchmarks) add their own."""
MOST_PACKS = 8
"""Packs kept before they are merged into one: each build that highlighted something adds one."""
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
    """A SuperFences formatter that reuses the HTML of a block it highlighted before.

    The blocks live in a few pack files, one JSON object of key to HTML each, read once when the first block
    is asked for. A build adds the blocks it highlighted as one new pack (:meth:`save`): a cold build
    writes one file, not one per block, which is most of what the cache costs on a fresh machine.
    """

    def __init__(self, folder: Path, settings: dict[str, Any]) -> None:
        self.folder = folder
        self.salt = json.dumps([_library_versions(), settings], sort_keys=True, default=_named)
        self.hits = 0
        self.misses = 0
        self._known: dict[str, str] | None = None
        self._packs: list[Path] = []
        self._used: set[str] = set()
        self._new: dict[str, str] = {}

    def key(self, src: str, language: str, options: dict[str, Any], kwargs: dict[str, Any]) -> str:
        """The hash of everything a block's HTML depends on."""
        inputs = [self.salt, language, options, kwargs.get("classes"), kwargs.get("id_value"), kwargs.get("attrs"), src]
        return hashlib.sha256(json.dumps(inputs, sort_keys=True, default=_named).encode("utf-8")).hexdigest()

    def format(self, src: str, language: str, class_name: str, options: dict[str, Any], md: Any, **kwargs: Any) -> str:
        """The custom fence's ``format``: the stored HTML of this block, or SuperFences' highlighting of it, kept."""
        if any(name in options for name in PASS_THROUGH_OPTIONS):
            return self._highlight(src, language, options, md, kwargs)
        key = self.key(src, language, options, kwargs)
        self._used.add(key)
        known = self._load()
        html = known.get(key)
        if html is not None:
            self.hits += 1
            return html
        html = self._highlight(src, language, options, md, kwargs)
        self.misses += 1
        known[key] = self._new[key] = html
        return html

    @staticmethod
    def _highlight(src: str, language: str, options: dict[str, Any], md: Any, kwargs: dict[str, Any]) -> str:
        fences = md.preprocessors["fenced_code_block"]  # SuperFences' own block processor, by its registered name
        return fences.highlight(src=src, language=language, options=dict(options), md=md, **kwargs)

    def _load(self) -> dict[str, str]:
        """Every stored block, from every pack that can be read (one that cannot, or that vanished, is skipped)."""
        if self._known is None:
            self._known = {}
            try:  # oldest first, so a newer pack's blocks come later in the merged order
                self._packs = sorted(self.folder.glob(PACK_GLOB), key=lambda p: (p.stat().st_mtime, p.name))
            except OSError:
                self._packs = []
            for pack in self._packs:
                try:
                    blocks = json.loads(pack.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue
                if isinstance(blocks, dict):
                    self._known.update((k, v) for k, v in blocks.items() if isinstance(v, str))
        return self._known

    def save(self) -> None:
        """Keep the blocks this build highlighted, as one pack. Once that would make more than
        :data:`MOST_PACKS` packs, or more than :data:`KEEP` blocks, the packs this build read are merged
        into one: the blocks this build used, then others, the newest packs' first, up to :data:`KEEP`."""
        if not self._new:
            return
        known = self._load()
        if len(self._packs) + 1 > MOST_PACKS or len(known) > KEEP:
            kept = {k: known[k] for k in self._used if k in known}
            for k in reversed(known):
                if len(kept) >= KEEP:
                    break
                kept.setdefault(k, known[k])
            if self._write(kept):
                for old in [*self._packs, *self.folder.glob(LEGACY_GLOB)]:
                    try:
                        old.unlink(missing_ok=True)
                    except OSError:
                        pass
        else:
            self._write(self._new)
        self._new = {}

    def _write(self, blocks: dict[str, str]) -> bool:
        """Write one pack atomically (a build beside this one never reads half a file); named by its content."""
        text = json.dumps(blocks)
        path = self.folder / f"pack-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:20]}.json"
        tmp = path.with_name(f".{path.stem}-{os.getpid()}.tmp")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
            return True
        except OSError:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            return False


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
