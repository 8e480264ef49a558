"""The doctrine a built wheel carries, for the tool run outside a checkout.

setup.py copies ``content/`` and ``snippets/evidence.json`` into the built package as ``doctrine/``, with the
commit they came from in ``doctrine/COMMIT``. A checkout, and an editable install of one, has no such folder."""

from __future__ import annotations

from pathlib import Path

PACKAGED_DOCTRINE = Path(__file__).resolve().parent / "doctrine"
COMMIT_FILE = "COMMIT"


def packaged_root() -> Path | None:
    """The doctrine installed with the tool, or None."""
    return PACKAGED_DOCTRINE if (PACKAGED_DOCTRINE / "content" / "handbook.yml").is_file() else None


def is_packaged(root: Path) -> bool:
    return root.resolve() == PACKAGED_DOCTRINE


def packaged_commit() -> str:
    """The commit the installed doctrine was built from (``-dirty`` when its content was not committed), else
    ``unknown``. Never asked of git: an installed copy may sit inside some other repository (a server's .venv)."""
    try:
        return (PACKAGED_DOCTRINE / COMMIT_FILE).read_text(encoding="utf-8").strip() or "unknown"
    except OSError:
        return "unknown"
