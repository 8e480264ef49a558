"""Building the site: the one place ``build``, ``serve`` and ``publish`` make it, with the downloads beside it.

Not in ``cli.py``: ``publish`` builds a site too, and a command module that imports ``cli.py`` closes a circle
(``cli.py`` loads the command modules)."""

from __future__ import annotations

import os
from pathlib import Path

from . import load_corpus
from .command import UsageError
from .model import Corpus


def build_site(root: Path, site_dir: Path, *, versioned: bool = False) -> Corpus:
    """Build the site strictly, the downloads beside it (the site's plugin writes them); the content is parsed
    once, here, and handed to the plugin.

    ``versioned`` is for ``publish``: the site is one version among others on the gh-pages branch, and Material's
    version selector reads their list from ``../versions.json``. A site built to be looked at alone has no such
    list beside it (the selector would ask for it and fail), so the plugin leaves the selector out."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from .site.plugin import handbook_plugin

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    corpus = load_corpus(root)
    if corpus.diagnostics:
        raise UsageError("the content does not lint; run `mcp-handbook check`")
    config = load_config(str(root / "mkdocs.yml"), site_dir=str(site_dir), strict=True)
    plugin = handbook_plugin(config)
    plugin.config.version_selector = versioned
    plugin.use_corpus(corpus)  # the plugin takes this parse instead of parsing the content again
    build(config)
    return corpus
