"""The audit worksheet: one row per rule, stamped with the doctrine version and commit."""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Corpus, Rule

COLUMNS = ("id", "title", "scope", "stack", "severity", "gate", "check", "status", "evidence", "notes")
STAMP_COLUMNS = ("doctrine_version", "commit")


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a worksheet was made from."""

    doctrine_version: str
    commit: str
    date: str
    filters: dict[str, tuple[str, ...]] = field(default_factory=dict)


def git_commit(root: Path) -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def stamp_for(corpus: Corpus, *, filters: dict[str, tuple[str, ...]] | None = None) -> Stamp:
    # SOURCE_DATE_EPOCH keeps builds reproducible when set
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    today = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc).date() if epoch else dt.date.today()
    return Stamp(corpus.version, git_commit(corpus.root), today.isoformat(), dict(filters or {}))


def worksheet_rows(rules: Iterable[Rule]) -> list[dict[str, str]]:
    return [
        {
            "id": r.id, "title": r.title, "scope": r.scope, "stack": r.stack, "severity": r.severity,
            "gate": r.gate, "check": r.check, "status": "", "evidence": "", "notes": "",
        }
        for r in rules
    ]


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", "<br>")


def to_markdown(rows: list[dict[str, str]], stamp: Stamp) -> str:
    filters = "; ".join(f"{k}={','.join(v)}" for k, v in stamp.filters.items() if v) or "none"
    head = [
        "# MCP server audit worksheet",
        "",
        f"- Doctrine version: {stamp.doctrine_version}",
        f"- Commit: {stamp.commit}",
        f"- Date: {stamp.date}",
        f"- Filters: {filters}",
        "",
        "Status is one of Pass, Fail, N/A. Put what you observed in evidence.",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    body = ["| " + " | ".join(_md_cell(row.get(c, "")) for c in COLUMNS) + " |" for row in rows]
    return "\n".join(head + body) + "\n"


def to_csv(rows: list[dict[str, str]], stamp: Stamp) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[*COLUMNS, *STAMP_COLUMNS], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({**row, "doctrine_version": stamp.doctrine_version, "commit": stamp.commit})
    return out.getvalue()


WRITERS: dict[str, Callable[[list[dict[str, str]], Stamp], str]] = {"md": to_markdown, "csv": to_csv}


def write_worksheet(rows: list[dict[str, str]], stamp: Stamp, *, fmt: str, path: Path) -> None:
    """Write atomically: a failed export never leaves a half-written file behind."""
    text = WRITERS[fmt](rows, stamp)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
