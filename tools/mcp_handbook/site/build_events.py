"""The work behind the mkdocs hooks: load this build's data, add the generated pages, set the nav.

``hooks.py`` (loaded by mkdocs from ``mkdocs.yml``) only forwards events here.
"""

from __future__ import annotations

from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

from .generated import generated_pages, navigation
from .state import ContentError, load_site_data, site_data
from .widgets import fill


def start_build(config: Any) -> None:
    """Parse the content once for this build; a content error stops it with every diagnostic, no traceback."""
    try:
        load_site_data(config)
    except ContentError as exc:
        raise PluginError(str(exc)) from None


def add_pages(files: Files, config: Any) -> Files:
    """Add the generated pages (a real file at the same path wins) and order the navigation."""
    data = site_data(config)
    for src, markdown in generated_pages(data.corpus).items():
        if files.get_file_from_path(src) is None:
            files.append(File.generated(config, src, content=markdown))
    pages = [f.src_uri for f in files.documentation_pages()]
    config["nav"] = navigation(data.corpus, pages)
    return files


def add_widgets(html: str, page: Any, config: Any) -> str:
    """Put the large widgets into the page's HTML where the macros left their markers."""
    data = site_data(config)
    return fill(html, data.corpus, from_src=page.file.src_uri, directory_urls=data.directory_urls)
