"""The audit worksheet: one row per rule, stamped with the doctrine version, commit, date and filters,
and with what was reviewed: the server's name and version, and the reviewer.

The text formats are plain functions ``(rows, stamp) -> str`` here; ``formats.py`` puts them and the
workbook in one table (:data:`~.formats.WRITERS`); ``report`` reads every one of them back.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import git
from ..model import Corpus, Rule
from .filters import FILTER_KEYS, filters_text, normalise

COLUMNS = ("id", "title", "scope", "stack", "severity", "gate", "check", "status", "evidence", "notes", "basis", "applies_to", "threats",
           "clauses", "page")
ADDED_COLUMNS = ("basis", "applies_to", "threats", "clauses", "page")
"""Columns added later (``basis`` and ``applies_to`` in doctrine 1.0.0, ``threats`` in 1.2.0, ``clauses`` in 1.3.0, ``page``
in 1.4.0: the rule's page in the published site of the exact doctrine version the worksheet was made from), last so the
reviewer's columns keep their letters; a worksheet exported before them still reads back."""
READ_COLUMNS = tuple(c for c in COLUMNS if c not in ADDED_COLUMNS)
"""The columns ``report`` requires of a worksheet."""
REVIEW_FIELDS = ("server_name", "server_version", "reviewer", "server_transport")
"""What was reviewed and by whom: stamp fields added after doctrine 1.0.0, empty when not given.
A worksheet without them still reads back."""
STAMP_COLUMNS = ("doctrine_version", "commit", "date", "filters", *REVIEW_FIELDS)
"""Extra CSV columns, repeated on every row so the file stays one clean table."""
REVIEW_LABELS = {"server_name": "Server", "server_version": "Server version", "reviewer": "Reviewer",
                 "server_transport": "Transport and eras"}
"""The Markdown header's words for :data:`REVIEW_FIELDS`."""
REVIEW_TEXT_LIMIT = 200
"""Characters kept of a review field: it is one line of a header, a cell and a file name."""
STATUSES = ("Pass", "Fail", "N/A")
"""What a reviewer writes in the status column (case does not matter); empty means not yet judged."""
JSON_FORMAT = "mcp-handbook-worksheet"
"""The ``format`` of a JSON worksheet; its shape is ``worksheet.schema.json`` beside this module."""
JSON_FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class Stamp:
    """What a worksheet was made from."""

    doctrine_version: str
    commit: str
    date: str
    filters: dict[str, tuple[str, ...]] = field(default_factory=dict)
    server_name: str = ""
    """The reviewed server's name (an audit takes it from the server's ``serverInfo``)."""
    server_version: str = ""
    """The reviewed server's version or commit."""
    reviewer: str = ""
    server_transport: str = ""
    """How the server was reached and which protocol eras it answered (an audit writes what it saw: ``stdio;
    answered: 2025-11-25 (initialize), 2026-07-28 (server/discover); probes spoke handshake``)."""

    @property
    def filters_text(self) -> str:
        return filters_text(self.filters)


DIRTY = "-dirty"
"""Suffix of a commit stamp when ``content/`` differs from that commit: the commit alone does not say what was exported."""


def _git_out(root: Path, *args: str) -> str | None:
    out = git.text(root, *args)
    return None if out is None else out.strip()


def git_commit(root: Path, *, content_dir: str = "content") -> str:
    """``HEAD``'s commit, with ``-dirty`` when the content has uncommitted changes, or ``unknown`` outside git; for
    the doctrine installed with the tool, the commit it was built from."""
    from ..installed import is_packaged, packaged_commit

    if is_packaged(root):
        return packaged_commit()
    head = _git_out(root, "rev-parse", "HEAD")
    if not head:
        return "unknown"
    changed = _git_out(root, "status", "--porcelain", "--untracked-files=all", "--", content_dir)
    return head + DIRTY if changed else head


def export_date() -> str:
    """Today, or the day of ``SOURCE_DATE_EPOCH`` when set, so builds are reproducible."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.UTC).date().isoformat()
    return dt.date.today().isoformat()


def review_text(value: object) -> str:
    """A review field as one trimmed line, at most :data:`REVIEW_TEXT_LIMIT` characters (the page does the same)."""
    return " ".join(str(value or "").split())[:REVIEW_TEXT_LIMIT].strip()


def stamp_for(
    corpus: Corpus,
    *,
    filters: Mapping[str, Iterable[str] | None] | None = None,
    server_name: str = "",
    server_version: str = "",
    reviewer: str = "",
    server_transport: str = "",
) -> Stamp:
    return Stamp(
        corpus.version, git_commit(corpus.root), export_date(), normalise(filters),
        server_name=review_text(server_name), server_version=review_text(server_version), reviewer=review_text(reviewer),
        server_transport=review_text(server_transport),
    )


def review_line(stamp: Stamp) -> str:
    """``; server acme, version 1.2; reviewer Ada`` for the parts given, or ``""``: a suffix for one-line summaries."""
    server = stamp.server_name or ("unnamed" if stamp.server_version else "")
    server += f", version {stamp.server_version}" if stamp.server_version else ""
    parts = [f"server {server}"] if server else []
    parts += [f"reviewer {stamp.reviewer}"] if stamp.reviewer else []
    parts += [f"over {stamp.server_transport}"] if stamp.server_transport else []
    return "".join(f"; {p}" for p in parts)


def worksheet_rows(rules: Iterable[Rule], corpus: Corpus | None = None) -> list[dict[str, str]]:
    """One row per rule; ``page`` is the rule's page in the published site of ``corpus``'s version (empty without one)."""
    def page(rule: Rule) -> str:
        return corpus.page_url(rule) if corpus is not None else ""

    return [
        {
            "id": r.id, "title": r.title, "scope": r.scope, "basis": r.basis, "stack": r.stack, "severity": r.severity,
            "gate": r.gate, "check": r.check, "applies_to": " ".join(r.conditions), "threats": " ".join(r.threats),
            "clauses": r.clause_summary, "page": page(r),
            "status": "", "evidence": "", "notes": "",
        }
        for r in rules
    ]


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", "<br>")


def to_markdown(rows: list[dict[str, str]], stamp: Stamp) -> str:
    head = [
        "# MCP server audit worksheet",
        "",
        f"- Doctrine version: {stamp.doctrine_version}",
        f"- Commit: {stamp.commit}",
        f"- Date: {stamp.date}",
        f"- Filters: {stamp.filters_text}",
        *(f"- {REVIEW_LABELS[name]}: {getattr(stamp, name)}".rstrip() for name in REVIEW_FIELDS),
        "",
        f"Status is one of {', '.join(STATUSES)}. Put what you observed in evidence.",
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
        writer.writerow({**row, **stamp_cells(stamp)})
    return out.getvalue()


def stamp_cells(stamp: Stamp) -> dict[str, str]:
    """The stamp as text cells, keyed by :data:`STAMP_COLUMNS` (CSV columns, the XLSX Stamp sheet)."""
    return {
        "doctrine_version": stamp.doctrine_version, "commit": stamp.commit, "date": stamp.date, "filters": stamp.filters_text,
        **{name: getattr(stamp, name) for name in REVIEW_FIELDS},
    }


def to_json(rows: list[dict[str, str]], stamp: Stamp) -> str:
    """The documented JSON shape (``worksheet.schema.json``): stamp fields, then ``items``."""
    document = {
        "format": JSON_FORMAT,
        "format_version": JSON_FORMAT_VERSION,
        "doctrine_version": stamp.doctrine_version,
        "commit": stamp.commit,
        "date": stamp.date,
        **{name: getattr(stamp, name) for name in REVIEW_FIELDS},
        "filters": {key: list(stamp.filters.get(key, ())) for key in FILTER_KEYS},
        "statuses": list(STATUSES),
        "items": [{c: row.get(c, "") for c in COLUMNS} for row in rows],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
