"""Large HTML widgets (the overview table, the worksheet) put into a page after Markdown has run.

The macros leave a marker comment; the plugin swaps it for the widget once
Markdown is done with the page (with the rule pages' deferred panels, see
``SiteData.late``). Python-Markdown would otherwise re-parse hundreds of rows
of raw HTML on every build for nothing, and it is a good share of the build
time once the doctrine has sixty rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..model import Corpus
from .tables import overview_table
from .worksheet_page import worksheet_app

Widget = Callable[..., str]
WIDGETS: dict[str, Widget] = {"overview": overview_table, "worksheet": worksheet_app}
"""Widget name -> ``fn(corpus, *, from_src, directory_urls) -> html``."""
MARKER = re.compile(r"<!-- hb-widget:([a-z-]+) -->")


def marker(name: str) -> str:
    """What a macro writes into the markdown where the widget goes."""
    if name not in WIDGETS:
        raise KeyError(f"unknown widget {name!r}; known: {', '.join(WIDGETS)}")
    return f"<!-- hb-widget:{name} -->"


def fill(html: str, corpus: Corpus, *, from_src: str, directory_urls: bool = True) -> str:
    """Replace every widget marker in a page's HTML with the widget."""
    if "<!-- hb-widget:" not in html:
        return html
    return MARKER.sub(lambda m: WIDGETS[m.group(1)](corpus, from_src=from_src, directory_urls=directory_urls), html)
