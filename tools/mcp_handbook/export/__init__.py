"""Exporters: the worksheet (md, csv, json, xlsx), ``rules.json``, the site's downloads.

Each format is a plain function in a table (:data:`WRITERS`, :data:`DOWNLOADS`);
the skill bundle lives in :mod:`mcp_handbook.export.skill`.
"""

from __future__ import annotations

from .downloads import DOWNLOADS, make_downloads, write_downloads
from .filters import FILTER_KEYS, filters_text, parse_filters_text, select_rules
from .rules import rules_document, to_rules_json
from .schemas import load_schema
from .formats import WRITERS, write_worksheet
from .worksheet import COLUMNS, REVIEW_FIELDS, STAMP_COLUMNS, STATUSES, Stamp, stamp_for, worksheet_rows

__all__ = [
    "COLUMNS", "DOWNLOADS", "FILTER_KEYS", "REVIEW_FIELDS", "STAMP_COLUMNS", "STATUSES", "WRITERS", "Stamp",
    "filters_text", "load_schema", "parse_filters_text", "rules_document", "select_rules", "stamp_for",
    "make_downloads", "to_rules_json", "worksheet_rows", "write_downloads", "write_worksheet",
]
