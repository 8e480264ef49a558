"""Hand material's search index each page without its syntax-highlighting spans.

The search plugin re-parses every page's HTML with Python's ``HTMLParser``.
On rule pages most tags are pygments ``<span>``s inside ``<pre>``, which hold
no text of their own, so parsing the page without them gives the same index
(``tests/site`` checks that code is still searchable) for far less work:
about 1 s of a 6 s build of 88 rules. The page itself keeps its highlighting:
only the copy the index reads is lightened. If material's internals change,
this does nothing and the build is merely slower.
"""

from __future__ import annotations

import re
from typing import Any

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
