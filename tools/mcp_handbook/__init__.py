"""The MCP Server Authoring Handbook toolchain: one parsed model, many readers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .model import Corpus, Diagnostic, Gate, Location, Rule, Snippet

__version__ = "0.1.0"


def load_corpus(root: Path | str = ".", *, content_dir: str = "content") -> Corpus:
    """Parse ``content/`` once and lint it; every reader starts here."""
    from .lint import lint
    from .parse import parse_content

    corpus = parse_content(Path(root), content_dir=content_dir)
    return dataclasses.replace(corpus, diagnostics=lint(corpus))


__all__ = ["load_corpus", "Corpus", "Diagnostic", "Gate", "Location", "Rule", "Snippet", "__version__"]
