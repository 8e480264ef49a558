"""mkdocs hooks (``hooks:`` in mkdocs.yml): forward build events to the installed package.

Thin on purpose, like the macros pluglet: mkdocs loads this file by path.
"""

from __future__ import annotations

from typing import Any

from mkdocs.plugins import event_priority

from mcp_handbook.site.build_events import add_pages, finish_build, finish_page, start_build
from mcp_handbook.site.rule_page import link_mentions
from mcp_handbook.site.state import site_data


@event_priority(100)  # before the macros and tags plugins read anything
def on_config(config: Any) -> None:
    start_build(config)


def on_files(files: Any, config: Any) -> Any:
    return add_pages(files, config)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return link_mentions(html, site_data(config), src=page.file.src_uri)


@event_priority(-100)  # after the search plugin has indexed the page
def on_page_context(context: Any, page: Any, config: Any, nav: Any) -> Any:
    page.content = finish_page(page.content, page, config)
    return context


def on_post_build(config: Any) -> None:
    finish_build(config)
