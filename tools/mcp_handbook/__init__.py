"""The MCP Server Authoring Handbook toolchain: one parsed model, many readers.

The code stands on floors, bottom up; a module imports its own floor and those below, never one above, and no
two modules import each other, even through others or inside a function (``tests/toolchain/test_layers.py``
checks both, and that no module is over 400 lines):

0. **reference server** (``tools/reference_server``): the server every block is proved against; it imports
   nothing of the handbook's.
1. **foundation**: ``addresses``, ``bounded_json``, ``procs``, ``installed``, ``reasons`` and ``command`` (what every command
   shares: the usage error, exit codes, finding the handbook).
2. **doctrine model**: ``fields`` (the rule format), ``threats``, ``model``.
3. **parse**: ``parse``, ``parse_cache``, ``history``, ``snippets``, ``seams``.
4. **wire**: the raw stdio client.
5. **probes**: the checks that prove rules over a real pipe.
6. **proving**: ``promises``, ``verify``, ``evidence``, the pytest plugin, ``lint`` and ``vocabulary`` (which check
   names against the probes), and this package's :func:`load_corpus`, which lints.
7. **documents**: the worksheet and ``rules.json`` formats (``export``'s modules), ``report``, ``contrib``.
8. **audit**: the probes against someone else's server, written out as a worksheet.
9. **bundles**: what gathers the floors below for a reader: ``export`` as a whole (with ``export/skill``, whose
   script runs the audit's static check, and the downloads), the ``site``, ``site_build``, the MCP ``mcp_server``,
   ``fleet`` (many audits, one scorecard).
10. **commands**: ``cli`` and each command module (``audit/cli.py``, ``export/cli.py``...), which ``cli`` loads by
    name.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .model import Corpus, Diagnostic, Gate, Location, Rule, Snippet



def _installed_version() -> str:
    """The installed package's version, which setup.py takes from the doctrine's (one version, in handbook.yml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp-handbook")
    except PackageNotFoundError:  # run from a checkout that was never installed (PYTHONPATH=tools)
        return "0+unknown"


__version__ = _installed_version()


def load_corpus(root: Path | str = ".", *, content_dir: str = "content", proving: bool = False) -> Corpus:
    """Parse ``content/`` once and lint it; every reader starts here.

    ``proving`` also checks probe, seam and reason names against the toolchain (it imports the probes
    and the reference server's seam table): ``check``, the pytest plugin, ``evidence`` and ``audit`` do."""
    from .lint import lint
    from .parse_cache import parse_cached

    corpus = parse_cached(Path(root), content_dir=content_dir)  # parse_content's result, reused while nothing changed
    known = None
    if proving:
        from .vocabulary import toolchain_vocabulary

        known = toolchain_vocabulary()
    return dataclasses.replace(corpus, diagnostics=lint(corpus, known))


__all__ = ["load_corpus", "Corpus", "Diagnostic", "Gate", "Location", "Rule", "Snippet", "__version__"]
