"""``mcp-handbook serve``: mkdocs' own development server, on 127.0.0.1, rebuilding and reloading on an edit.

It is ``mkdocs serve --dirty`` with the offline settings of ``mcp-handbook build`` (the plugin leaves out the
version selector, the theme loads no web font) and the downloads beside the pages. mkdocs watches the content
and mkdocs.yml; the site's plugin adds the probes, the recorded proofs and the templates (``on_serve``). After
a rebuild the open page reloads itself (mkdocs injects the livereload script into the pages it serves).

Dirty, because a whole build is about 5 s of CPU and most of it is pages the edit did not touch: after an edit
to a rule's prose only that page is rendered again (under a second), and the plugin rebuilds every page after
any edit that shows elsewhere (``HandbookPlugin.on_pre_build``). Not strict, because mkdocs warns at every dirty
build and strict mode stops at a warning: a warning still shows in the log, and ``build`` stays strict.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"


def free_port() -> int:
    """A port nothing listens on now, chosen by the OS: mkdocs needs the number before it binds (it builds the
    pages with the address they are served from)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def serve_site(root: Path, port: int) -> None:
    """Build the site, serve it on ``HOST:port`` (any free port for 0) and rebuild on every edit until stopped
    (Ctrl-C or SIGTERM; mkdocs then removes the temporary folder it built into)."""
    from mkdocs.commands.serve import serve

    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    _log_like_mkdocs()
    signal.signal(signal.SIGTERM, _interrupt)
    serve(config_file=str(root / "mkdocs.yml"), livereload=True, build_type="dirty", watch_theme=False,
          dev_addr=f"{HOST}:{port or free_port()}", strict=False)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _log_like_mkdocs() -> None:
    """mkdocs' messages (building, each warning, ``Serving on http://...``) on stderr, as its own command shows them."""
    logger = logging.getLogger("mkdocs")
    if not any(getattr(h, "name", "") == "mcp-handbook-serve" for h in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.name = "mcp-handbook-serve"
        handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
