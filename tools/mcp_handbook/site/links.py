"""Where pages end up, and relative links between them, the way mkdocs computes them.

Raw HTML (the filterable tables, the worksheet) is not rewritten by mkdocs,
so its links are computed here with mkdocs's own functions rather than by
hand, and stay right whether or not ``use_directory_urls`` is set.
"""

from __future__ import annotations

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


@lru_cache(maxsize=4096)  # every table row asks for several; a File is not cheap to make
def page_url(src: str, *, directory_urls: bool = True) -> str:
    """The site URL of a docs page, relative to the site root."""
    return File(src, None, "", directory_urls).url


def href(target_src: str, *, from_src: str, directory_urls: bool = True) -> str:
    """A relative link from one docs page to another (or to a non-page file under the site)."""
    target = page_url(target_src, directory_urls=directory_urls) if target_src.endswith(".md") else target_src
    return get_relative_url(target, page_url(from_src, directory_urls=directory_urls))
