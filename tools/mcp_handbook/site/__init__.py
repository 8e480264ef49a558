"""The site's view of the corpus: pages, tables and the worksheet, produced from the model.

Modules, one job each: ``state`` (what a build knows), ``rule_page``,
``proofs`` (verification panels), ``tables`` (overview and gate tables),
``generated`` (gate and tag pages, the nav), ``worksheet_page``,
``downloads``, ``changes`` (git history), ``links`` and ``labels``. The
mkdocs-macros pluglet (``macros.py``) and the mkdocs hooks (``hooks.py``)
only hand the corpus to them.
"""

from __future__ import annotations

from .labels import KIND_LABEL, SCOPE_LABEL, page_tags, qualifier_text, scope_text
from .rule_page import rule_page

__all__ = ["KIND_LABEL", "SCOPE_LABEL", "page_tags", "qualifier_text", "rule_page", "scope_text"]
