"""What one site build knows: the corpus (parsed once), the recorded proofs and the git history.

The site's mkdocs plugin (``plugin.py``) loads it at the start of every build (``mkdocs serve``
rebuilds included) and keeps it on itself; the macros pluglet reads the same object through the
plugin, so the content is parsed once per build however many readers there are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import load_corpus
from ..proving import evidence
from ..model import Corpus, Rule, Snippet
from .changes import Change, rule_changes


LATE_MARKER = re.compile(r"<!-- hb-late:(\d+) -->")
SEARCH_ATTRIBUTE = re.compile(r'\s?data-search-\w+="[^"]+"')
"""An attribute only the search plugin reads (``data-search-exclude``)."""


class ContentError(Exception):
    """The content does not lint; the build stops with every diagnostic."""


@dataclass(slots=True)
class SiteData:
    """The model and everything derived from it that pages show."""

    corpus: Corpus
    proofs: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Recorded proofs by snippet name (``snippets/evidence.json``)."""
    history: dict[str, tuple[Change, ...]] = field(default_factory=dict)
    """Commits by root-relative rule path."""
    directory_urls: bool = True
    highlight: Any = None
    """This build's highlight cache (``highlight_cache.HighlightCache``), or None when it is off."""
    defer_html: bool = False
    """Set by the plugin: page furniture waits out of Markdown and the search index (see :meth:`late`)."""
    deferred: dict[str, list[str]] = field(default_factory=dict)
    """The HTML each page's markers stand for, by docs-relative source path, until the plugin puts it in."""
    _probe_sources: dict[str, str] = field(default_factory=dict)

    def late(self, src: str, html: str) -> str:
        """``html`` as it is, or, in a build with the plugin, a marker the plugin replaces with it once Markdown and
        the search index are done with the page: finished HTML that no one needs to parse again (the facts and
        proof panels, kept out of search anyway) then costs neither of them anything."""
        if not self.defer_html or not html.strip():
            return html
        pieces = self.deferred.setdefault(src, [])
        pieces.append(html.removesuffix("\n"))  # the marker keeps the newline; Markdown writes it out
        return f"<!-- hb-late:{len(pieces) - 1} -->" + ("\n" if html.endswith("\n") else "")

    def put_late(self, src: str, html: str) -> str:
        """Replace the page's :meth:`late` markers with their HTML, without the search-only attributes
        (the search plugin strips those from what it has seen; these pieces arrive after it)."""
        pieces = self.deferred.pop(src, None)
        if not pieces:
            return html
        return LATE_MARKER.sub(lambda m: SEARCH_ATTRIBUTE.sub("", pieces[int(m.group(1))]), html)

    def proof(self, rule: Rule, snippet: Snippet) -> tuple[dict[str, Any] | None, bool]:
        """The recorded proof of a block and whether it is current for the block's code."""
        return evidence.current_entry(rule, snippet, self.proofs, sources=self._probe_sources)

    def changes(self, rule: Rule) -> tuple[Change, ...]:
        return self.history.get(rule.path, ())


def load_site_data(config: Any, corpus: Corpus | None = None) -> SiteData:
    """This build's data: ``corpus`` when the caller already parsed the content, else the content parsed now.
    Raise ContentError listing every diagnostic."""
    root = Path(config["config_file_path"]).resolve().parent
    corpus = corpus if corpus is not None else load_corpus(root)
    if corpus.diagnostics:
        lines = "\n".join(str(d) for d in corpus.diagnostics)
        raise ContentError(f"the content does not lint; run `mcp-handbook check`:\n{lines}")
    return SiteData(
        corpus=corpus,
        proofs=evidence.load(root),
        history=rule_changes(root),
        directory_urls=bool(config.get("use_directory_urls", True)),
    )
