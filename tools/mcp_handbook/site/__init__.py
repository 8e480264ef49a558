"""The site's view of the corpus: pages, tables and the worksheet, produced from the model.

Modules, one job each: ``state`` (what a build knows), ``rule_page``,
``proofs`` (verification panels), ``tables`` (overview and gate tables),
``generated`` (gate and tag pages, the nav), ``threats_page`` (the OWASP MCP Top 10 and
the CWE index), ``worksheet_page``,
``downloads``, ``changes`` (git history), ``highlight_cache`` (highlighted code kept
by content hash), ``links`` and ``labels``. The
mkdocs-macros pluglet (``macros.py``) and the mkdocs hooks (``hooks.py``)
only hand the corpus to them. Nothing is imported here, so a module that needs one
part does not load the rest.
"""
