"""The worksheet formats as one table of plain functions ``(rows, stamp) -> str | bytes``, and the atomic write.

Imports flow one way: this module reads the text writers (``worksheet.py``) and the workbook
(``xlsx.py``, with openpyxl, imported only when a workbook is asked for); neither imports this one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .files import atomic_write
from .worksheet import Stamp, to_csv, to_json, to_markdown


def to_xlsx(rows: list[dict[str, str]], stamp: Stamp) -> bytes:
    from .xlsx import workbook_bytes  # openpyxl is imported only when a workbook is asked for

    return workbook_bytes(rows, stamp)


WRITERS: dict[str, Callable[[list[dict[str, str]], Stamp], str | bytes]] = {
    "md": to_markdown, "csv": to_csv, "json": to_json, "xlsx": to_xlsx,
}
"""Worksheet formats by file suffix."""


def write_worksheet(rows: list[dict[str, str]], stamp: Stamp, *, fmt: str, path: Path) -> None:
    """Write atomically: a failed export never leaves a half-written file behind."""
    atomic_write(path, WRITERS[fmt](rows, stamp))
