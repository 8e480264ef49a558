"""Make material's search index for less: pages without highlighting spans, read in a second process.

The search plugin re-parses every page's HTML with Python's ``HTMLParser``.
On rule pages most tags are pygments ``<span>``s inside ``<pre>``, which hold
no text of their own, so parsing the page without them gives the same index
(``tests/site`` checks that code is still searchable) for far less work:
about 1 s of a 6 s build of 88 rules. The page itself keeps its highlighting:
only the copy the index reads is lightened. If material's internals change,
this does nothing and the build is merely slower.

Second, in ``mcp-handbook build`` (see :func:`index_in_child`), the whole
index is made by a forked child (:mod:`mcp_handbook.forked`) at the ``on_env``
event, when every page's HTML is final (the tags plugin has filled its
listings), while this process renders the pages; the entries come back for
material to write in its ``on_post_build``. The index is the same as the one
made page by page (``tests/site/test_build_helpers.py`` compares whole sites
built both ways); with no child, indexing is page by page as usual.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mkdocs.structure.files import InclusionLevel

from ..forked import Forked
from .state import config_file

SPAN = re.compile(r'<span(?: class="[^"]*")?>|</span>')
PRE = re.compile(r"<pre\b.*?</pre>", re.S)


def without_highlighting(html: str) -> str:
    """The HTML with every span inside ``<pre>`` removed; the text is unchanged."""
    return PRE.sub(lambda m: SPAN.sub("", m.group(0)), html)


def lighten_search_index(config: Any) -> None:
    """Wrap this build's search index so it reads pages without highlighting spans."""
    index = getattr(config.plugins.get("material/search"), "search_index", None)
    add = getattr(index, "add_entry_from_context", None)
    if add is None or getattr(add, "hb_light", False):
        return

    def add_light(page: Any) -> Any:
        content = page.content
        page.content = without_highlighting(content)
        try:
            return add(page)
        finally:
            page.content = content

    add_light.hb_light = True  # type: ignore[attr-defined]
    index.add_entry_from_context = add_light


_WANTED: set[str] = set()
_JOBS: dict[str, tuple[Any, Any, Forked[list[dict[str, Any]]]]] = {}
"""Config file -> (material's index, its own add_entry_from_context, the child making the entries)."""


@contextmanager
def index_in_child(path: Path) -> Iterator[None]:
    """Within the block, a build of the mkdocs.yml at ``path`` makes its search index in a child process."""
    key = str(path.resolve())
    _WANTED.add(key)
    try:
        yield
    finally:
        _WANTED.discard(key)
        stop_indexing(key)


def _index_pages(index: Any, pages: list[Any], contents: list[str]) -> list[dict[str, Any]]:
    """What material's on_page_context would add for each page, in build order, from the HTML
    as it was at ``on_env`` (in this process, should the child fail, pages have changed since)."""
    for page, content in zip(pages, contents):
        now, page.content = page.content, content
        try:
            index.add_entry_from_context(page)
        finally:
            page.content = now
    return index.entries


def start_indexing(config: Any, files: Any) -> None:
    """``on_env``: fork the indexer when this build asked for it and can have it."""
    key = str(config_file(config))
    plugin = config.plugins.get("material/search")
    index = getattr(plugin, "search_index", None)
    if key not in _WANTED or index is None or getattr(plugin, "is_dirty", True) or index.entries:
        return
    pages = [f.page for f in files.documentation_pages(inclusion=InclusionLevel.is_included)]
    job = Forked(_index_pages, index, pages, [p.content for p in pages])
    if job.pid is None:
        return  # no child: index page by page as usual
    _JOBS[key] = (index, index.add_entry_from_context, job)
    index.add_entry_from_context = lambda page: None  # the child is doing it


def finish_indexing(config: Any) -> None:
    """``on_post_build`` (before material's): hand material the child's entries."""
    found = _JOBS.pop(str(config_file(config)), None)
    if found is None:
        return
    index, add, job = found
    index.add_entry_from_context = add
    with job:
        index.entries = job.result()


def stop_indexing(key: str) -> None:
    """After a failed build: stop the child by its PID."""
    found = _JOBS.pop(key, None)
    if found is not None:
        index, add, job = found
        index.add_entry_from_context = add
        job.cancel()
