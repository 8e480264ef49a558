"""Exporters: each a plain function ``(corpus, rows, stamp, path) -> None`` in one table."""

from __future__ import annotations

from .worksheet import COLUMNS, WRITERS, Stamp, stamp_for, worksheet_rows, write_worksheet

__all__ = ["COLUMNS", "WRITERS", "Stamp", "stamp_for", "worksheet_rows", "write_worksheet"]
