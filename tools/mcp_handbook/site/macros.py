"""mkdocs-macros pluglet: registers the macros the hand-written pages call (``render_macros: true``).

Thin on purpose: the corpus is parsed once per build by the site's plugin (``plugin.py``, which also
renders the rule pages); every function here only hands it, and the current page, to the package.
"""

from __future__ import annotations

from typing import Any

from .downloads import downloads_list
from .home import badge_legend, basis_list, gate_list, profile_list, scope_list
from .links import href
from .plugin import handbook_plugin
from .state import SiteData
from .widgets import marker


def _data(env: Any) -> SiteData:
    return handbook_plugin(env.conf).site_data()


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

