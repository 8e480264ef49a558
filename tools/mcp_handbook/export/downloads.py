"""The site's downloads: every export of the whole doctrine, in one folder.

The site's downloads page links exactly these names, so they are a table.
Dates come from ``SOURCE_DATE_EPOCH`` when set and archives carry fixed times,
so two builds of the same commit give the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..model import Corpus
from .files import atomic_write
from .rules import to_rules_json
from .formats import WRITERS
from .worksheet import Stamp, stamp_for, worksheet_rows

SKILL_ZIP = "mcp-server-authoring-skill.zip"


def _worksheet(fmt: str) -> Callable[[Corpus, Stamp], str | bytes]:
    return lambda corpus, stamp: WRITERS[fmt](worksheet_rows(corpus.rules, corpus), stamp)


def _rules(corpus: Corpus, stamp: Stamp) -> str:
    return to_rules_json(corpus, corpus.rules, stamp)


def _skill(corpus: Corpus, stamp: Stamp) -> bytes:
    from .skill import SKILL_NAME, skill_files, skill_zip

    return skill_zip(skill_files(corpus, corpus.rules, stamp), name=SKILL_NAME, date=stamp.date)


DOWNLOADS: dict[str, Callable[[Corpus, Stamp], str | bytes]] = {
    "worksheet.md": _worksheet("md"),
    "worksheet.csv": _worksheet("csv"),
    "worksheet.json": _worksheet("json"),
    "worksheet.xlsx": _worksheet("xlsx"),
    "rules.json": _rules,
    SKILL_ZIP: _skill,
}
"""File name in the downloads folder -> how to make it from the corpus and one stamp."""


def make_downloads(corpus: Corpus) -> dict[str, str | bytes]:
    """Every download's content, by file name, under one stamp; nothing is written."""
    stamp = stamp_for(corpus)
    return {name: make(corpus, stamp) for name, make in DOWNLOADS.items()}


def write_downloads(corpus: Corpus, folder: Path, contents: dict[str, str | bytes] | None = None) -> list[Path]:
    """Write every download into ``folder`` (each file atomically); return the paths written.

    ``contents`` is what :func:`make_downloads` returned, when it was made elsewhere (the site
    build makes it in a second process); all of it exists before any file is written.
    """
    contents = make_downloads(corpus) if contents is None else contents
    written = []
    for name, data in contents.items():
        atomic_write(folder / name, data)
        written.append(folder / name)
    return written
