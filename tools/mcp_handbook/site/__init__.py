"""The site's view of the corpus: pages, tables and the worksheet, produced from the model.

Modules, one job each: ``state`` (what a build knows), ``rule_page``,
``proofs`` (verification panels), ``tables`` (overview and gate tables),
``generated`` (gate and tag pages, the nav), ``threats_page`` (the OWASP MCP Top 10 and
the CWE index), ``worksheet_page``,
``downloads``, ``changes`` (git history), ``highlight_cache`` (highlighted code kept
by content hash), ``links``, ``mentions`` (rule ids linked by a Markdown treeprocessor), ``labels``,
``inputs`` (what a dirty rebuild must not miss) and ``serve``. The mkdocs plugin
(``plugin.py``, entry point ``mcp-handbook``) owns a build's state and hands the corpus to them;
the mkdocs-macros pluglet (``macros.py``) only registers the pages' macros. Nothing is imported here, so a module that needs one
part does not load the rest.
"""
