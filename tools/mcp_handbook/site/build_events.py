"""The work behind the mkdocs hooks: load this build's data, add the generated pages, set the nav.

``hooks.py`` (loaded by mkdocs from ``mkdocs.yml``) only forwards events here.
"""

from __future__ import annotations

from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from .generated import generated_pages, navigation
from .highlight_cache import install as install_highlight_cache
from .state import ContentError, load_site_data, site_data
from .widgets import fill


def start_build(config: Any) -> None:
    """Parse the content once for this build (a content error stops it with every diagnostic, no traceback)
    and let code blocks reuse their highlighting from earlier builds."""
    try:
        data = load_site_data(config)
    except ContentError as exc:
        raise PluginError(str(exc)) from None
    data.highlight = install_highlight_cache(config)
    data.defer_html = True  # finish_page puts the deferred HTML in
    config["site_url"] = published_root(data.corpus)


def published_root(corpus: Any) -> str:
    """This version's own site, where ``Corpus.page_url`` puts its rule pages: ``site:`` in handbook.yml, then the
    version. mkdocs.yml names no site_url, so the canonical links and the sitemap can never disagree with it."""
    return f"{corpus.site}{corpus.version}/" if corpus.site else ""


def finish_build(config: Any) -> None:
    """Keep the blocks this build highlighted for the next one."""
    data = site_data(config)
    if data.highlight is not None:
        data.highlight.save()


def add_pages(files: Files, config: Any) -> Files:
    """Add the generated pages (a real file at the same path wins) and order the navigation."""
    data = site_data(config)
    for src, markdown in generated_pages(data.corpus).items():
        if files.get_file_from_path(src) is None:
            files.append(File.generated(config, src, content=markdown))
    pages = [f.src_uri for f in files.documentation_pages()]
    config["nav"] = navigation(data.corpus, pages)
    return files


def finish_page(html: str, page: Any, config: Any) -> str:
    """Put the finished HTML into the page where the macros left markers: the large widgets and the deferred
    panels. It runs once Markdown and the search index are done with the page, so neither parses them."""
    data = site_data(config)
    src = page.file.src_uri
    return fill(data.put_late(src, html), data.corpus, from_src=src, directory_urls=data.directory_urls)
