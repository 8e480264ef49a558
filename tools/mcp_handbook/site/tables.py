"""Rule tables: the overview of every rule (filterable in the browser) and each gate's page.

The overview is raw HTML so each row can carry its fields as ``data-``
attributes for ``assets/filters.js``; without JavaScript it is still a full,
readable table (the filter form stays hidden).
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from html import escape

from ..export.filters import filter_value
from ..fields import PROFILE_MEANING
from ..model import Corpus, Gate, Rule
from .labels import CHECK_LABEL, PROFILE_LABEL, SCOPE_LABEL, SEVERITY_LABEL, check_text, condition_text, scope_text, severity_text
from .links import gate_src, href, rule_src

FILTER_FIELDS = ("profile", "scope", "stack", "severity", "gate", "check", "without")
TOKEN_FIELDS = ("profile",)
"""Filters a row matches when its space-separated ``data-`` value holds the chosen token."""
TOKEN_MATCH = ' data-hb-match="token"'
GENERAL_FIELDS = ("stack",)
"""Filters a row with no value for passes whatever is chosen: a rule with no stack applies to every stack."""


def _options(values: Iterable[tuple[str, str]]) -> str:
    return "".join(f'<option value="{escape(v)}">{escape(label)}</option>' for v, label in values)


def filter_choices(corpus: Corpus, rules: Sequence[Rule]) -> dict[str, list[tuple[str, str]]]:
    """The values each filter offers: every declared one for fixed fields, those in use for the rest."""
    return {
        "profile": [(k, f"{v}: {PROFILE_MEANING[k].split(' (')[0]}") for k, v in PROFILE_LABEL.items()],
        "without": [(k, condition_text(k)) for k in dict.fromkeys(c for r in rules for c in r.conditions)],
        "scope": [(k, v) for k, v in SCOPE_LABEL.items()],
        "stack": [(s, s) for s in sorted({r.stack for r in rules if r.stack})],
        "severity": [(k, v) for k, v in SEVERITY_LABEL.items()],
        "gate": [(g.key, g.title) for g in corpus.gates],
        "check": [(k, v) for k, v in CHECK_LABEL.items()],
    }


def filter_form(
    corpus: Corpus,
    rules: Sequence[Rule],
    *,
    target: str,
    fields: Sequence[str],
    label: str,
    text_box: bool = True,
    extra_choices: Mapping[str, list[tuple[str, str]]] | None = None,
) -> str:
    """A filter form for the table with id ``target``: one select per field, a text box, a live count.

    ``extra_choices`` adds filters on row attributes that are not rule fields (the worksheet's status).
    The chosen filters live in the page's query string (``assets/filters.js``), so a filtered view
    can be shared and survives Back; ``autocomplete="off"`` keeps the browser from restoring stale choices.
    """
    choices = {**filter_choices(corpus, rules), **(extra_choices or {})}
    selects = "".join(
        f'<label>{escape(name.capitalize())} <select data-hb-filter="{name}"{TOKEN_MATCH if name in TOKEN_FIELDS else ""}>'
        f'<option value="">All</option>{_options(choices[name])}</select></label>'
        for name in fields
        if choices[name] and name != "without"
    )
    if "without" in fields and choices["without"]:
        boxes = "".join(
            f'<label><input type="checkbox" data-hb-without="{escape(key)}"> {escape(text)}</label>'
            for key, text in sorted(choices["without"], key=lambda c: c[0])
        )
        selects += (
            '<details class="hb-conditions"><summary>Leave out rules that do not apply: the server does not meet…</summary>'
            f'<div class="hb-condition-boxes">{boxes}</div></details>'
        )
    text = '<label>Text <input type="search" data-hb-filter-text placeholder="id, title, summary"></label>' if text_box else ""
    general = " ".join(name for name in fields if name in GENERAL_FIELDS)
    general_attr = f' data-hb-general="{general}"' if general else ""
    return (
        f'<form class="hb-filters" data-hb-filters="{escape(target)}"{general_attr} aria-label="{escape(label)}" autocomplete="off" hidden>'
        f"{selects}{text}"
        '<button type="reset">Show all</button>'
        f'<output class="hb-filter-count" aria-live="polite">{len(rules)} rules</output>'
        "</form>"
    )


def _check_cell(rule: Rule) -> str:
    label = escape(CHECK_LABEL.get(rule.check, rule.check))
    return f"{label}<br><code>{escape(rule.probe)}</code>" if rule.check == "automated" and rule.probe else label


def row_data(rule: Rule, fields: Sequence[str]) -> str:
    """The row's ``data-`` attributes that the filter form matches against."""
    return " ".join(f'data-{name}="{escape(filter_value(rule, name))}"' for name in fields)


def overview_table(corpus: Corpus, *, from_src: str, directory_urls: bool = True) -> str:
    """Every rule in one table with filters by scope, stack, severity, gate and check kind."""
    rows = []
    for r in corpus.rules:
        gate = corpus.gate(r.gate)
        link = href(rule_src(r), from_src=from_src, directory_urls=directory_urls)
        gate_link = href(gate_src(r.gate), from_src=from_src, directory_urls=directory_urls)
        summary = f'<br><span class="hb-summary">{escape(r.summary)}</span>' if r.summary else ""
        rows.append(
            f'<tr {row_data(r, FILTER_FIELDS)}><td><a href="{link}"><code>{escape(r.id)}</code></a></td>'
            f'<td><a href="{link}">{escape(r.title)}</a>{summary}</td>'
            f'<td><span class="hb-badge hb-scope-{escape(r.scope)}">{escape(scope_text(r))}</span></td>'
            f'<td><span class="hb-badge hb-sev-{escape(r.severity)}">{escape(severity_text(r))}</span></td>'
            f'<td><a href="{gate_link}">{escape(gate.title if gate else r.gate)}</a></td>'
            f"<td>{_check_cell(r)}</td></tr>"
        )
    form = filter_form(corpus, corpus.rules, target="hb-overview", fields=FILTER_FIELDS, label="Filter the rules")
    return (
        f'<div class="hb-rules">{form}\n'
        '<table id="hb-overview"><thead><tr><th>Id</th><th>Rule</th><th>Scope</th>'
        "<th>Severity</th><th>Gate</th><th>Check</th></tr></thead><tbody>\n"
        + "\n".join(rows)
        + '\n</tbody></table><p class="hb-empty" hidden>No rule matches these filters.</p></div>\n'
    )


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def gate_table(corpus: Corpus, gate: Gate) -> str:
    """A markdown table of one gate's rules; links are markdown, so the strict build checks them."""
    rules = [r for r in corpus.rules if r.gate == gate.key]
    if not rules:
        return "No rules in this gate yet."
    lines = ["| Id | Rule | Scope | Severity | Check |", "|---|---|---|---|---|"]
    for r in rules:
        target = posixpath.relpath(rule_src(r), posixpath.dirname(gate_src(gate.key)))  # a rule may live in another folder
        summary = f"<br><span class=\"hb-summary\">{escape(_md_cell(r.summary))}</span>" if r.summary else ""
        lines.append(
            f"| [`{r.id}`]({target}) | [{_md_cell(escape(r.title))}]({target}){summary} | {escape(scope_text(r))} | "
            f"{severity_text(r)} | {escape(check_text(r))} |"
        )
    return "\n".join(lines)


def gate_page(corpus: Corpus, gate: Gate) -> str:
    """The generated page of one gate: what it covers, its counts, its rules."""
    rules = [r for r in corpus.rules if r.gate == gate.key]
    high = sum(1 for r in rules if r.severity == "high")
    automated = sum(1 for r in rules if r.check == "automated")
    counts = f"{len(rules)} rule{'s' if len(rules) != 1 else ''} · {high} high severity · {automated} proved by a probe"
    summary = f"{gate.summary}\n\n" if gate.summary else ""
    return (
        f"---\ntitle: {json.dumps(gate.title)}\nhide: [toc]\n---\n\n# {escape(gate.title)}\n\n{escape(summary)}"
        f"Gate {gate.order} of {len(corpus.gates)} · {counts}.\n\n{gate_table(corpus, gate)}\n"
    )
