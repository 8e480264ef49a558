"""What every command shares: the usage error, the exit codes, and finding the handbook a command works on.

Command modules (``audit/cli.py``, ``export/cli.py``...) import this, never ``cli.py``, which imports them: one
``UsageError`` class, defined below the commands, is the one ``cli.main`` catches, however the program was started
(``python -m mcp_handbook.cli`` runs ``cli.py`` as ``__main__``, a second copy of that module, not of this one)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .installed import packaged_root

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A problem with how the command was called or with a file it was given."""


def find_root(start: Path) -> Path:
    """The handbook checkout holding ``start``: the first folder up with ``mkdocs.yml`` and a ``content/`` folder."""
    for folder in (start, *start.parents):
        if (folder / "mkdocs.yml").is_file() and (folder / "content").is_dir():
            return folder
    raise UsageError(f"no handbook here: no mkdocs.yml with a content/ folder in {start} or above (use --root)")


def handbook_root(args: argparse.Namespace) -> Path:
    """The checkout a maintainer's command (check, build, diff...) works on: ``--root``, else the one around here."""
    return Path(args.root).resolve() if args.root else find_root(Path.cwd().resolve())


def doctrine_root(args: argparse.Namespace) -> Path:
    """The handbook whose rules ``audit``, ``export`` and ``report`` use: ``--root``, else the checkout around the
    current folder (a checkout wins: it may hold a newer doctrine), else the one installed with the tool."""
    if args.root:
        return Path(args.root).resolve()
    try:
        return find_root(Path.cwd().resolve())
    except UsageError as exc:
        installed = packaged_root()
        if installed is None:
            raise UsageError(f"{exc}; this copy of the tool carries no doctrine of its own (a wheel does): name the "
                             "handbook folder before the command, `mcp-handbook --root DIR COMMAND ...`") from None
        return installed
