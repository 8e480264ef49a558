"""Where a value sits in a filled worksheet, and a problem found there.

Every message about a worksheet starts with its place, in the words of the
format the reviewer has open: ``ws.csv: row 4, column H (status)``,
``ws.xlsx: sheet Worksheet, row 4, column H (status)``, ``ws.md: line 14,
column 8 (status)``, ``ws.json: item 3, field status``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class Place:
    """A file, optionally narrowed to a sheet, a row (or line, or item) and a column (or field)."""

    file: str
    row: int | None = None
    column: str = ""
    """A letter (csv, xlsx), a 1-based number (md, json text) or a field name (json)."""
    name: str = ""
    """The column's header, shown beside a letter or number."""
    sheet: str = ""
    row_word: str = "row"
    column_word: str = "column"

    def at(self, *, column: str, name: str = "") -> Place:
        """The same row, one column."""
        return replace(self, column=column, name=name)

    def __str__(self) -> str:
        parts = [f"sheet {self.sheet}"] if self.sheet else []
        if self.row is not None:
            parts.append(f"{self.row_word} {self.row}")
        if self.column:
            label = f"{self.column_word} {self.column}"
            parts.append(f"{label} ({self.name})" if self.name and self.name != self.column else label)
        return f"{self.file}: {', '.join(parts)}" if parts else self.file


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the worksheet; never an exception."""

    place: Place
    message: str

    def __str__(self) -> str:
        return f"{self.place}: {self.message}"


def column_letter(index: int) -> str:
    """Spreadsheet column name for a 0-based index (0 -> A, 26 -> AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters
