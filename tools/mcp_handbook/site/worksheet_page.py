"""The interactive worksheet: the rules as rows with status, evidence and notes, driven by ``assets/worksheet.js``.

The rows, the column order, the statuses, the stamp fields and the JSON format
all come from the exporters (``mcp_handbook.export``) at build time and travel
to the browser in one JSON block, so the page's CSV, Markdown and JSON exports
are the CLI's exports with the reviewer's answers filled in. The block also
says what changed since each earlier doctrine version (``worksheet_history``),
so answers stored under one can be carried over with care.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from ..export import worksheet as ws
from ..export.filters import FILTER_KEYS
from ..model import Corpus, Rule
from .labels import BASIS_MEANING, basis_text, check_text, scope_text, severity_text
from .links import gate_src, href, rule_src
from .tables import filter_form, row_data
from .worksheet_history import earlier_versions, retired_rules

STORAGE_PREFIX = "mcp-handbook/worksheet/"
"""localStorage key prefix; the doctrine version follows, so each version keeps its own review."""
UNREVIEWED = "unreviewed"
"""A row's ``data-status`` and the status filter's value before the reviewer has judged it."""
FILTER_FIELDS = ("status", "check", *FILTER_KEYS)
"""The worksheet's filters, first those that find what is left; only ``FILTER_KEYS`` go into an export's stamp."""
REVIEW_PLACEHOLDERS = {"server_name": "e.g. acme-files", "server_version": "e.g. 1.4.2 or a commit", "reviewer": "your name",
                       "server_transport": "e.g. stdio; 2025-11-25"}


def worksheet_data(corpus: Corpus, *, from_src: str, directory_urls: bool = True) -> dict[str, Any]:
    """Everything the page's script needs: the format, the stamp and one row per rule."""
    rows = ws.worksheet_rows(corpus.rules, corpus)
    for row, rule in zip(rows, corpus.rules):
        row["_url"] = href(rule_src(rule), from_src=from_src, directory_urls=directory_urls)
    return {
        "format": {
            "columns": list(ws.COLUMNS),
            "stamp_columns": list(ws.STAMP_COLUMNS),
            "statuses": list(ws.STATUSES),
            "json_format": ws.JSON_FORMAT,
            "json_format_version": ws.JSON_FORMAT_VERSION,
            "filter_keys": list(FILTER_KEYS),
            "review_fields": list(ws.REVIEW_FIELDS),
            "review_labels": dict(ws.REVIEW_LABELS),
            "review_limit": ws.REVIEW_TEXT_LIMIT,
        },
        "doctrine_version": corpus.version,
        "commit": ws.git_commit(corpus.root),
        "storage_key": STORAGE_PREFIX + corpus.version,
        "storage_prefix": STORAGE_PREFIX,
        "unreviewed": UNREVIEWED,
        "earlier": earlier_versions(corpus),
        "retired": retired_rules(corpus),
        "rows": rows,
    }


def _json_script(data: dict[str, Any]) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="hb-worksheet-data">{text}</script>'


def _status_control(rule: Rule, statuses: list[str]) -> str:
    name = f"status-{escape(rule.id)}"
    options = [("", "–", "Not reviewed")] + [(s, s, s) for s in statuses]  # noqa: RUF001 - the dash is the mark shown
    radios = "".join(
        f'<label title="{escape(tip)}"><input type="radio" name="{name}" value="{escape(value)}"'
        f'{" checked" if not value else ""}><span>{escape(text)}</span></label>'
        for value, text, tip in options
    )
    return (
        f'<fieldset class="hb-status" data-field="status"><legend class="hb-sr">Status of {escape(rule.id)}</legend>'
        f'{radios}</fieldset><span class="hb-print-only hb-print-status"></span>'
    )


def _text_control(rule: Rule, field: str, label: str) -> str:
    return (
        f'<textarea data-field="{field}" rows="2" aria-label="{escape(label)} for {escape(rule.id)}" '
        f'placeholder="{escape(label)}"></textarea><div class="hb-print-only hb-print-text"></div>'
    )


def _row(corpus: Corpus, rule: Rule, *, from_src: str, directory_urls: bool, statuses: list[str]) -> str:
    gate = corpus.gate(rule.gate)
    link = href(rule_src(rule), from_src=from_src, directory_urls=directory_urls)
    gate_link = href(gate_src(rule.gate), from_src=from_src, directory_urls=directory_urls)
    data = row_data(rule, (*FILTER_KEYS, "check"))
    badges = (
        f'<span class="hb-badge hb-scope-{escape(rule.scope)}">{escape(scope_text(rule))}</span> '
        f'<span class="hb-badge hb-basis-{escape(rule.basis)}" title="{escape(BASIS_MEANING.get(rule.basis, ""))}">'
        f'{escape(basis_text(rule))}</span> '
        f'<span class="hb-badge hb-sev-{escape(rule.severity)}">{escape(severity_text(rule))}</span> '
        f'<a class="hb-badge hb-gate" href="{gate_link}">{escape(gate.title if gate else rule.gate)}</a> '
        f'<span class="hb-badge hb-check">{escape(check_text(rule))}</span>'
    )
    return (
        f'<tr data-id="{escape(rule.id)}" {data} data-status="{UNREVIEWED}">'
        f'<th scope="row"><a href="{link}"><code>{escape(rule.id)}</code></a> {escape(rule.title)}'
        f'<div class="hb-ws-badges">{badges}</div></th>'
        f"<td>{_status_control(rule, statuses)}</td>"
        f'<td>{_text_control(rule, "evidence", "Evidence")}</td>'
        f'<td>{_text_control(rule, "notes", "Notes")}</td></tr>'
    )


def _review_fields() -> str:
    """Text boxes for what is reviewed and by whom; they go into every export's stamp and the file name."""
    boxes = "".join(
        f'<label>{escape(ws.REVIEW_LABELS[name])} <input type="text" data-hb-review="{name}" maxlength="{ws.REVIEW_TEXT_LIMIT}" '
        f'placeholder="{escape(REVIEW_PLACEHOLDERS[name])}" autocomplete="off"></label>'
        for name in ws.REVIEW_FIELDS
    )
    return f'<fieldset class="hb-ws-review" hidden><legend>What you review</legend>{boxes}</fieldset>'


def _key_hint() -> str:
    """``<kbd>P</kbd> for Pass, ...``: each status's first letter sets it (``assets/worksheet.js`` reads the same)."""
    return ", ".join(f"<kbd>{escape(s[0].upper())}</kbd> for {escape(s)}" for s in ws.STATUSES)


def _toolbar(corpus: Corpus) -> str:
    # no text box: a text filter could not be written into the export's stamp
    statuses = [(UNREVIEWED, "Not reviewed")] + [(s, s) for s in ws.STATUSES]
    filters = filter_form(
        corpus, corpus.rules, target="hb-ws-table", fields=FILTER_FIELDS, label="Filter the worksheet", text_box=False,
        extra_choices={"status": statuses},
    )
    return (
        f'<div class="hb-ws-toolbar hb-no-print">{_review_fields()}'
        '<div class="hb-ws-earlier" role="region" aria-label="Answers saved for an earlier doctrine" hidden></div>'
        f"{filters}"
        '<div class="hb-ws-actions" hidden>'
        '<button type="button" data-hb-export="csv">Export CSV</button>'
        '<button type="button" data-hb-export="md">Export Markdown</button>'
        '<button type="button" data-hb-export="json">Export JSON</button>'
        '<label class="hb-import">Import JSON <input type="file" accept=".json,application/json" data-hb-import></label>'
        '<button type="button" data-hb-print>Print / PDF</button>'
        '<button type="button" data-hb-clear>Clear answers</button>'
        "</div>"
        f'<p class="hb-ws-keys" hidden>Keys: with a status focused, press {_key_hint()}, <kbd>-</kbd> to clear it. '
        "Arrow keys move between the choices.</p>"
        '<div class="hb-ws-message" role="status" aria-live="polite"></div>'
        "</div>"
    )


def worksheet_app(corpus: Corpus, *, from_src: str, directory_urls: bool = True) -> str:
    """The whole worksheet: data block, toolbar and table (rows rendered here, so the page prints without scripts)."""
    data = worksheet_data(corpus, from_src=from_src, directory_urls=directory_urls)
    statuses = data["format"]["statuses"]
    rows = "\n".join(_row(corpus, r, from_src=from_src, directory_urls=directory_urls, statuses=statuses) for r in corpus.rules)
    return (
        f'<div id="hb-worksheet" class="hb-worksheet">{_json_script(data)}\n'
        '<noscript><p>The interactive worksheet needs JavaScript. The same worksheet is on the Downloads page as '
        "Markdown, CSV, JSON and Excel.</p></noscript>\n"
        '<div class="hb-print-only hb-print-head"></div>'
        f"{_toolbar(corpus)}\n"
        '<p class="hb-ws-progress" aria-live="polite"></p>'
        '<div class="hb-ws-table"><table id="hb-ws-table"><thead><tr><th scope="col">Rule</th><th scope="col">Status</th>'
        '<th scope="col">Evidence</th><th scope="col">Notes</th></tr></thead><tbody>\n'
        f"{rows}\n</tbody></table>"
        '<p class="hb-empty" hidden>No rule matches these filters.</p></div>'
        f'<p class="hb-print-only hb-print-stamp">Doctrine {escape(corpus.version)} · commit {escape(data["commit"])}</p>'
        "</div>\n"
    )
