"""Where pages end up, and relative links between them, the way mkdocs computes them.

Raw HTML (the filterable tables, the worksheet) is not rewritten by mkdocs,
so its links are computed here with mkdocs's own functions rather than by
hand, and stay right whether or not ``use_directory_urls`` is set.
"""

from __future__ import annotations

import re
from functools import lru_cache

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


THREATS_SRC = "threats.md"
"""The generated threats page (the OWASP MCP Top 10 and the CWE index), relative to docs_dir."""


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
