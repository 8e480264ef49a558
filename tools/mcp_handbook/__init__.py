"""The MCP Server Authoring Handbook toolchain: one parsed model, many readers."""

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
