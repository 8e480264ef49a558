"""``report``: read a filled worksheet in any export format and turn it into findings.

``make_report`` is the whole pipeline: read (every format into one shape),
find the doctrine the worksheet came from, check every row against it, group
findings by severity and list what changed since.
"""

from __future__ import annotations

from pathlib import Path

from ..model import Corpus
from .findings import Item, Report, Since, build_report, status_of
from .places import Place, Problem
from .read import read_worksheet
from .render import problems_json, render_json, render_text, report_data


def make_report(path: Path, *, root: Path, current: Corpus, file: str | None = None, profile: str = "baseline") -> Report | list[Problem]:
    """A report, or every problem with the worksheet (each naming its file, row and column)."""
    filled, problems = read_worksheet(path, file=file)
    if filled is None:
        return problems
    return build_report(filled, root=root, current=current, read_problems=problems, profile=profile)


__all__ = [
    "Item", "Place", "Problem", "Report", "Since", "build_report", "make_report", "problems_json",
    "read_worksheet", "render_json", "render_text", "report_data", "status_of",
]
