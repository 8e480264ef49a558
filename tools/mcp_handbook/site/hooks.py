"""mkdocs hooks (``hooks:`` in mkdocs.yml): forward build events to the installed package.

Thin on purpose, like the macros pluglet: mkdocs loads this file by path.
"""

from __future__ import annotations

from typing import Any

from mkdocs.plugins import event_priority

from mcp_handbook.site.build_events import add_pages, add_widgets, start_build
from mcp_handbook.site.search_speed import finish_indexing, start_indexing
from mcp_handbook.site.templates_ahead import use_compiled


@event_priority(100)  # before the macros and tags plugins read anything
def on_config(config: Any) -> None:
    start_build(config)


def on_files(files: Any, config: Any) -> Any:
    return add_pages(files, config)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return add_widgets(html, page, config)


@event_priority(-100)  # after any plugin has added its filters: the compiled code must match them
def on_env(env: Any, config: Any, files: Any) -> Any:
    start_indexing(config, files)  # every page's HTML is final now (the tags plugin ran at priority 100)
    return use_compiled(env, config)


@event_priority(50)  # before material's search plugin writes the index
def on_post_build(config: Any) -> None:
    finish_indexing(config)
