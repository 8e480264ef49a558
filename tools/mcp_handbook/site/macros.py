"""mkdocs-macros pluglet: registers the site's macros and renders rule pages.

Thin on purpose: the corpus is parsed once per build (``state.site_data``);
every function here only hands it, and the current page, to the package.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .downloads import downloads_list
from .home import badge_legend, basis_list, gate_list, profile_list, scope_list
from .links import href
from .rule_page import page_meta, rule_page
from .state import SiteData, site_data
from .widgets import marker


def _data(env: Any) -> SiteData:
    return site_data(env.conf)


def _src(env: Any) -> str:
    return env.page.file.src_uri


def define_env(env: Any) -> None:
    env.macro(lambda: _data(env).corpus.version, "doctrine_version")
    env.macro(lambda: len(_data(env).corpus.rules), "rule_count")
    env.macro(lambda: gate_list(_data(env).corpus, from_src=_src(env)), "gate_list")
    env.macro(lambda: scope_list(_data(env).corpus, from_src=_src(env)), "scope_list")
    env.macro(lambda: basis_list(_data(env).corpus, from_src=_src(env)), "basis_list")
    env.macro(lambda: profile_list(_data(env).corpus, from_src=_src(env)), "profile_list")
    env.macro(lambda: badge_legend(_data(env).corpus, from_src=_src(env)), "badge_legend")
    env.macro(lambda: marker("overview"), "overview_table")  # filled in after Markdown, see widgets.py
    env.macro(lambda: marker("worksheet"), "worksheet_app")
    env.macro(
        lambda: downloads_list(
            version=_data(env).corpus.version,
            prefix=href("downloads/", from_src=_src(env), directory_urls=_data(env).directory_urls).rstrip("/") + "/",
        ),
        "downloads_list",
    )


def on_pre_page_macros(env: Any) -> None:
    """Replace a rule file's markdown with its full page; tag it, place it in the checklist, hide its TOC."""
    data = _data(env)
    if env.page.file.abs_src_path is None:
        return  # a generated page
    src = Path(env.page.file.abs_src_path).resolve().relative_to(data.corpus.root).as_posix()
    rule = next((r for r in data.corpus.rules if r.path == src), None)
    if rule is None:
        return
    env.markdown = rule_page(data.corpus, rule, data=data)
    env.page.meta.update(page_meta(data.corpus, rule))
