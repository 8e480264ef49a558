"""Where pages end up, and relative links between them, the way mkdocs computes them.

Raw HTML (the filterable tables, the worksheet) is not rewritten by mkdocs,
so its links are computed here with mkdocs's own functions rather than by
hand, and stay right whether or not ``use_directory_urls`` is set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from html import escape

from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

from ..model import Rule

DOCS_PREFIX = "content/"
"""The docs_dir, as the model's root-relative paths begin."""


def rule_src(rule: Rule) -> str:
    """The rule page's source path relative to docs_dir (``rules/security/x.md``)."""
    path = rule.path
    return path[len(DOCS_PREFIX):] if path.startswith(DOCS_PREFIX) else path


def gate_src(gate_key: str) -> str:
    """The generated gate page's source path."""
    return f"rules/{gate_key}/index.md"


@lru_cache(maxsize=4096)  # every table row asks for several; a File is not cheap to make
def page_url(src: str, *, directory_urls: bool = True) -> str:
    """The site URL of a docs page, relative to the site root."""
    return File(src, None, "", directory_urls).url


def href(target_src: str, *, from_src: str, directory_urls: bool = True) -> str:
    """A relative link from one docs page to another (or to a non-page file under the site)."""
    target = page_url(target_src, directory_urls=directory_urls) if target_src.endswith(".md") else target_src
    return get_relative_url(target, page_url(from_src, directory_urls=directory_urls))


SPEC_SITE = "https://modelcontextprotocol.io/specification"
"""Where the MCP specification is published, one folder per revision."""
SPEC_FIELD = re.compile(r"^(?P<revision>\d{4}-\d\d-\d\d)\s+(?P<page>[a-z0-9_]+(?:/[a-z0-9_-]+)*)(?:#(?P<anchor>[a-z0-9_-]+))?$")
"""A ``spec:`` value that names a page: ``2025-11-25 server/tools#security-considerations``."""


def spec_url(spec: str) -> str:
    """The specification page a rule's ``spec:`` field cites, or "" when the field names no page.

    The published site serves ``basic/index`` as ``basic``, so a trailing ``index`` is dropped.
    """
    match = SPEC_FIELD.match(spec.strip())
    if not match:
        return ""
    page = match["page"].removesuffix("/index")
    path = "" if page == "index" else "/" + page
    anchor = f"#{match['anchor']}" if match["anchor"] else ""
    return f"{SPEC_SITE}/{match['revision']}{path}{anchor}"


RULE_ID = re.compile(r"(?<![\w-])[A-Z]{2,5}-\d{3}(?![\w-])")
TAG = re.compile(r"""<(?:!--.*?--|[^>"']*(?:(?:"[^"]*"|'[^']*')[^>"']*)*)>""", re.S)
TAG_NAME = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)")
NOT_PROSE = frozenset({"a", "code", "pre", "kbd", "samp", "script", "style", "textarea", "h1", "h2", "h3", "h4", "h5", "h6"})
"""Elements whose text is not prose: a rule id there stays as written (code, an existing link, a heading)."""


PRE_BLOCK = re.compile(r"(<pre\b.*?</pre>)", re.S)
"""A code block, taken whole: most of a rule page's tags are its highlighted code, which holds no prose."""


def link_rule_ids(html: str, targets: Mapping[str, tuple[str, str]]) -> str:
    """Make each rule id in the prose of ``html`` a link: ``targets`` maps an id to its (href, title).

    Ids inside code, links and headings are left alone, and so is any id ``targets`` does not hold.
    """
    chunks = PRE_BLOCK.split(html)  # prose, code block, prose, ...: code blocks pass through untouched
    return "".join(chunk if i % 2 else _link_prose(chunk, targets) for i, chunk in enumerate(chunks))


def _link_prose(html: str, targets: Mapping[str, tuple[str, str]]) -> str:
    if not RULE_ID.search(html):
        return html
    out: list[str] = []
    depth = 0  # how many NOT_PROSE elements are open here
    position = 0
    for tag in TAG.finditer(html):
        out.append(_link_ids(html[position:tag.start()], targets) if depth == 0 else html[position:tag.start()])
        out.append(tag.group(0))
        position = tag.end()
        name = TAG_NAME.match(tag.group(0))
        if name and name.group(2).lower() in NOT_PROSE and not tag.group(0).endswith("/>"):
            depth = max(depth - 1, 0) if name.group(1) else depth + 1
    out.append(_link_ids(html[position:], targets) if depth == 0 else html[position:])
    return "".join(out)


def _link_ids(text: str, targets: Mapping[str, tuple[str, str]]) -> str:
    def link(match: re.Match[str]) -> str:
        target = targets.get(match.group(0))
        if target is None:
            return match.group(0)
        url, title = target
        return f'<a class="hb-rule-ref" href="{escape(url)}" title="{escape(title)}">{match.group(0)}</a>'

    return RULE_ID.sub(link, text)
