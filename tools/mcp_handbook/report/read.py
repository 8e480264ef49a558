"""Read a filled worksheet in any export format into one shape, with every problem located.

Readers are a table of plain functions ``(data, file) -> (Filled | None,
problems)``. They only read: whether ids exist and statuses are valid is
decided later, against the doctrine the worksheet was made from. No file can
take them down or hold them up: the file is read only when it is a regular file
of at most :data:`MAX_FILE_BYTES`, each reader stops at :data:`MAX_ROWS` rows,
and JSON nested too deep is a problem like any other (:mod:`..bounded_json`).
"""

from __future__ import annotations

import importlib
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..export.worksheet import STAMP_COLUMNS
from .places import Place, Problem

MAX_FILE_BYTES = 32 * 1024 * 1024
"""Largest worksheet read. One row per rule with its evidence is well under a megabyte."""
MAX_ROWS = 10_000
"""Most rows (items, lines of the table) read; a worksheet has one per rule."""
MAX_LINE_CHARS = 1024 * 1024
"""Longest line of a text worksheet read."""

STAMP_KEYS = STAMP_COLUMNS
"""Stamp fields a reader looks for: version, commit, date, filters and what was reviewed (older files lack the last)."""


@dataclass(frozen=True, slots=True)
class Cell:
    value: str
    place: Place


@dataclass(frozen=True, slots=True)
class Entry:
    """One row of the worksheet: its cells by column name."""

    place: Place
    cells: dict[str, Cell]

    def value(self, column: str) -> str:
        cell = self.cells.get(column)
        return cell.value if cell else ""


@dataclass(frozen=True, slots=True)
class Filled:
    """A worksheet as a reviewer returned it."""

    file: str
    format: str
    stamp: dict[str, Cell]
    """``doctrine_version`` (always); ``commit``, ``date``, ``filters``, ``server_name``, ``server_version``, ``server_transport``,
    ``reviewer`` when the file has them."""
    entries: tuple[Entry, ...]


Reader = Callable[[bytes, str], tuple[Filled | None, list[Problem]]]


def decode(data: bytes, file: str) -> tuple[str | None, list[Problem]]:
    """UTF-8 text (a BOM is dropped), or a problem naming the line and column of the first bad byte."""
    if not data.strip():
        return None, [Problem(Place(file), "the file is empty")]
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        place = Place(file, row=line, row_word="line", column=str(column))
        return None, [Problem(place, f"the file is not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8")]


def too_many_rows(place: Place, word: str = "rows") -> Problem:
    return Problem(place, f"the worksheet has more than {MAX_ROWS:,} {word}, where it has one per rule; reading stopped "
                          "there (is it the right file?)")


def match_columns(
    header: Sequence[str], place_of: Callable[[int], Place], header_place: Place, *, required: Sequence[str], optional: Sequence[str] = ()
) -> tuple[dict[str, int], list[Problem]]:
    """Map column names (any case, spaces trimmed) to positions; a missing column names what stands in its way."""
    index: dict[str, int] = {}
    problems: list[Problem] = []
    strangers: list[int] = []
    for i, raw in enumerate(header):
        key = str(raw or "").strip().lower()
        if key in index and key in (*required, *optional):
            problems.append(Problem(place_of(i), f"column {key!r} appears twice (first at {place_of(index[key]).column})"))
        elif key in (*required, *optional):
            index[key] = i
        else:
            strangers.append(i)
    for name in required:
        if name not in index:
            guess = ", ".join(f"{header[i]!r} in {place_of(i).column_word} {place_of(i).column}" for i in strangers if str(header[i] or "").strip())
            hint = f" (found {guess}: renamed?)" if guess else ""
            problems.append(Problem(header_place, f"missing column {name!r}{hint}; the columns are {', '.join(required)}"))
    return index, problems


def cells_of(values: Sequence[str], index: dict[str, int], place_of: Callable[[int], Place]) -> dict[str, Cell]:
    return {name: Cell(values[i], place_of(i)) for name, i in index.items() if i < len(values)}


READERS: dict[str, tuple[str, str]] = {
    "md": ("read_text", "read_markdown"),
    "csv": ("read_text", "read_csv"),
    "json": ("read_json", "read_json"),
    "xlsx": ("read_xlsx", "read_xlsx"),
}
"""Format -> (module, function): each reader is imported only when its format is read
(openpyxl and jsonschema are slow to import, and a CSV report needs neither)."""


def reader_for(fmt: str) -> Reader:
    module, name = READERS[fmt]
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)


SUFFIXES = {".md": "md", ".markdown": "md", ".csv": "csv", ".json": "json", ".xlsx": "xlsx"}


def detect_format(path: Path, data: bytes) -> str | None:
    """By suffix; a zip is a workbook whatever it is called."""
    if data[:4] == b"PK\x03\x04":
        return "xlsx"
    return SUFFIXES.get(path.suffix.lower())


def read_worksheet(path: Path, *, file: str | None = None) -> tuple[Filled | None, list[Problem]]:
    """Read ``path`` with the reader its format needs; never raises on bad input."""
    file = file or str(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a pipe or a device would hold the reader for ever
            return None, [Problem(Place(file), "is not a regular file (a folder, a pipe or a device): a worksheet is a file")]
        with path.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, [Problem(Place(file), f"cannot read the file: {exc.strerror or exc}")]
    if len(data) > MAX_FILE_BYTES:
        return None, [Problem(Place(file), f"the file is larger than {MAX_FILE_BYTES // 2**20} MiB; a worksheet is far "
                                           "smaller (is it the right file?)")]
    fmt = detect_format(path, data)
    if fmt is None:
        return None, [Problem(Place(file), f"unknown worksheet format {path.suffix!r}; export one with "
                                           "`mcp-handbook export worksheet` (md, csv, json, xlsx)")]
    return reader_for(fmt)(data, file)


__all__ = ["MAX_FILE_BYTES", "MAX_LINE_CHARS", "MAX_ROWS", "STAMP_KEYS", "too_many_rows", "Cell", "Entry", "Filled",
           "Reader", "decode", "match_columns", "cells_of", "read_worksheet"]
