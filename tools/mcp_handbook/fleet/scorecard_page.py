"""The scorecard as one page a person opens from a folder, a CI artifact or a mail: self-contained (its style and
script inline, no font or script fetched, so it works offline and from ``file://``), in the handbook site's look.

Every text on it was written by a server or a registry entry (names, versions, reasons), so every text goes through
:func:`html.escape` and every link is built from the scorecard's own site and a quoted version. The table is
complete without JavaScript; the script adds sorting (click a header) and filters whose state lives in the page's
query string, so a view can be shared and comes back after Back. Rows carry no per-rule letters (the JSON and the
CSV do): ten thousand servers stay a page of a few megabytes.
"""

from __future__ import annotations

from html import escape
from importlib import resources
from typing import Any
from urllib.parse import quote

from .merge import STATUSES

SHOWN = 500
"""Rows shown at a time (the script shows the next ones on a click): a browser lays out every shown row again when
rows move, and ten thousand took it most of a minute to sort on a busy two-core machine."""
MAX_CHANGES_SHOWN = 300
"""Each list of the "Changes since" section shows at most this many servers; diff.json holds them all."""
STATE_MARKS = {"audited": "", "no answer": "⚠ ", "not audited": "○ ", "auditor failed": "⚠ "}
"""A mark beside each state, so colour is never the only signal (as on the site)."""


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _path(value: str) -> str:
    """A name or package, escaped, that a narrow column may break after each slash rather than mid-word."""
    return _e(value).replace("/", "/<wbr>")


def _home(card: dict[str, Any]) -> str:
    """The handbook's name, linking to its newest version when the scorecard knows where it is published (the
    scorecard is published beside it)."""
    site = card.get("site") or ""
    if isinstance(site, str) and site.startswith(("https://", "http://")):
        return f'<a class="hb-bar-title" href="{_e(site.rstrip("/") + "/latest/")}">MCP Server Authoring Handbook</a>'
    return '<span class="hb-bar-title">MCP Server Authoring Handbook</span>'


def page_html(card: dict[str, Any], changes: dict[str, Any] | None = None) -> str:
    """The whole page, with the "Changes since" section when ``changes`` (a :func:`.scorecard.diff`) is given."""
    rows = card["rows"]
    parts = [
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Fleet scorecard ({len(rows)} servers) · MCP Server Authoring Handbook</title>\n"
        f"<style>\n{_asset('scorecard.css')}</style>\n</head>\n<body>\n"
        f'<header class="hb-bar">{_home(card)}'
        '<span class="hb-bar-page">Fleet scorecard</span></header>\n<main class="hb-main md-typeset">\n'
        "<h1>Fleet scorecard</h1>\n",
        _overview(card),
        _changes(changes) if changes is not None else "",
        _filters(card),
        _table(card),
        _legend(),
        f"</main>\n<script>\n{_asset('scorecard.js')}</script>\n</body>\n</html>\n",
    ]
    return "".join(parts)


def _versions(counts: dict[str, int]) -> str:
    return ", ".join(f"{_e(v or 'unknown')} ({n})" for v, n in sorted(counts.items())) or "none"


def _overview(card: dict[str, Any]) -> str:
    states = card["states"]
    said = ", ".join(f"{STATE_MARKS.get(s, '')}{n} {_e(s)}" for s, n in sorted(states.items(), key=lambda kv: -kv[1]))
    high = sum(1 for r in card["rows"] if r["high_fails"])
    mixed = ('<p class="hb-warning">⚠ <strong>Mixed versions:</strong> these results were judged by more than one '
             "doctrine or tool version; compare rows of one version only.</p>\n") if card.get("mixed_versions") else ""
    return (
        f'<p class="hb-claim">{len(card["rows"])} servers: {said or "none"}. '
        f"{high} with a HIGH-severity rule failed by the server itself.</p>\n{mixed}"
        '<dl class="hb-meta">'
        f"<div><dt>Doctrine</dt><dd>{_versions(card['doctrine_versions'])}</dd></div>"
        f"<div><dt>Tool</dt><dd>{_versions(card['tool_versions'])}</dd></div>"
        f"<div><dt>Rules</dt><dd>{len(card['rules'])} in {len(card['gates'])} gates</dd></div></dl>\n"
    )


def _changes(changes: dict[str, Any]) -> str:
    totals = changes["totals"]
    before = changes["previous"]
    head = (f'<section class="hb-changes" aria-labelledby="hb-changes-h"><h2 id="hb-changes-h">Changes since the '
            f"previous scorecard ({before['servers']} servers, doctrine {_versions(before['doctrine_versions'])})</h2>\n"
            f"<p>{totals['new']} new, {totals['gone']} gone, {totals['changed']} changed: "
            f"{totals['worse']} rules worse, {totals['better']} better, {totals['unchecked']} no longer checked.</p>\n")
    lists = [_server_list("New servers", changes["new"]), _server_list("Gone", changes["gone"]), _changed(changes["changed"])]
    return head + "".join(lists) + "</section>\n"


def _more(total: int) -> str:
    return f"<p>… and {total - MAX_CHANGES_SHOWN} more (diff.json lists them all).</p>\n" if total > MAX_CHANGES_SHOWN else ""


def _server_list(title: str, servers: list[dict[str, Any]]) -> str:
    if not servers:
        return ""
    items = "".join(f"<li>{_e(s['name'] or s['key'])} <code>{_e(s['version'])}</code> ({_e(s['state'])})</li>"
                    for s in servers[:MAX_CHANGES_SHOWN])
    return f"<h3>{_e(title)} ({len(servers)})</h3>\n<ul>{items}</ul>\n{_more(len(servers))}"


def _changed(changed: list[dict[str, Any]]) -> str:
    if not changed:
        return ""

    def pair(value: list[str] | None) -> str:
        return f"{_e(value[0])} → {_e(value[1])}" if value else ""

    def ids(values: list[str], mark: str) -> str:
        return " ".join(f"{mark}<code>{_e(v)}</code>" for v in values)

    body = "".join(
        f"<tr><th scope=\"row\">{_e(c['name'] or c['key'])}</th><td>{pair(c['version'])}</td><td>{pair(c['state'])}</td>"
        f"<td>{ids(c['worse'], '✗ ')}</td><td>{ids(c['better'], '✓ ')}</td><td>{ids(c['unchecked'], '? ')}</td></tr>"
        for c in changed[:MAX_CHANGES_SHOWN])
    return (f"<h3>Changed ({len(changed)})</h3>\n<div class=\"hb-scroll\"><table class=\"hb-changed\"><thead><tr>"
            "<th scope=\"col\">Server</th><th scope=\"col\">Version</th><th scope=\"col\">State</th>"
            "<th scope=\"col\">Worse (now FAIL)</th><th scope=\"col\">Better (FAIL → PASS)</th>"
            f"<th scope=\"col\">No longer checked</th></tr></thead><tbody>{body}</tbody></table></div>\n{_more(len(changed))}")


def _filters(card: dict[str, Any]) -> str:
    states = "".join(f'<option value="{_e(s)}">{_e(s)}</option>' for s in sorted(card["states"]))
    gates = "".join(f'<option value="{_e(g)}">{_e(g)}</option>' for g in card["gates"])
    return (
        '<h2 id="hb-servers-h">Servers</h2>\n'
        '<form class="hb-filters" data-hb-card-filters="hb-card" hidden role="search" aria-label="Filter the servers">'
        '<label>Search<input type="search" data-hb-filter-text placeholder="name, package, rule id…"></label>'
        f'<label>State<select data-hb-filter="state"><option value="">any</option>{states}</select></label>'
        f'<label>FAIL in gate<select data-hb-filter="gate"><option value="">any</option>{gates}</select></label>'
        '<button type="reset">Clear</button><span class="hb-filter-count" aria-live="polite"></span></form>\n'
    )


def _columns(card: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(sort key, header text, kind) of each column; kind ``n`` sorts as a number, ``t`` as text."""
    return [("server", "Server", "t"), ("state", "State", "t"), ("high", "HIGH failures", "n"),
            *((f"g:{g}", g, "n") for g in card["gates"]),
            *((f"s:{s}", s.upper() if s in ("high", "medium", "low") else s, "n") for s in card["severities"]),
            ("unchecked", "Not checked", "n"), ("seconds", "Seconds", "n")]


def _table(card: dict[str, Any]) -> str:
    heads = "".join(
        f'<th scope="col" aria-sort="none" data-kind="{kind}"{_group(key)}><button type="button" data-sort="{_e(key)}">'
        f"{_e(text)}</button></th>"
        for key, text, kind in _columns(card))
    site = card.get("site", "")
    links = site if site.startswith(("https://", "http://")) else ""
    pages = {r["id"]: r.get("page", "") for r in card["rules"]}
    body = "".join(_row(card, row, links, pages, n >= SHOWN) for n, row in enumerate(card["rows"]))
    rest = len(card["rows"]) - SHOWN
    return (
        '<p class="hb-table-note">FAIL counts per gate and severity, out of the rules judged (PASS + FAIL); '
        "click a column's header to sort.</p>\n"
        '<div class="hb-scroll hb-scroll-tall" tabindex="0" role="region" aria-labelledby="hb-servers-h">'
        f'<table id="hb-card" class="hb-card" data-shown="{SHOWN}"><thead><tr>{heads}</tr></thead>\n<tbody>\n{body}'
        "</tbody></table></div>\n"
        '<p class="hb-empty" hidden>No server matches these filters.</p>\n'
        f'<p><button type="button" class="hb-more" data-hb-more hidden>Show {SHOWN} more</button></p>\n'
        + (f"<noscript><p>The first {SHOWN} servers are shown; {rest} more are in scorecard.csv and scorecard.json "
           "(with JavaScript on, this page shows them all, sorted and filtered).</p></noscript>\n" if rest > 0 else "")
    )


def _group(key: str) -> str:
    return ' class="hb-gate"' if key.startswith("g:") else (' class="hb-sev"' if key.startswith("s:") else "")


def _count_cell(counts: list[int] | None) -> str:
    if not counts:
        return '<td class="hb-none">&ndash;</td>'
    fails, judged = counts[1], counts[0] + counts[1]
    mark = ' class="hb-fail"' if fails else ""
    return f"<td{mark}>{fails}<small>/{judged}</small></td>"  # the script sorts on the number before the slash


def _row(card: dict[str, Any], row: dict[str, Any], site: str, pages: dict[str, str], later: bool) -> str:
    state = row["state"]
    failing = " ".join(g for g, counts in row["gates"].items() if counts[1])
    dim = ' class="hb-dim"' if state == "not audited" else ""
    name = row["name"] or row["server_name"] or row["key"]
    said = f' <span class="hb-said">serverInfo {_e(row["server_name"])} {_e(row["server_version"])}</span>' \
        if row["server_name"] and row["server_name"] != row["name"] else ""
    why = f'<br><span class="hb-why">{_e(row["why"])}</span>' if row["why"] else ""
    seconds = row["seconds"] if row["seconds"] is not None else ""
    cells = [
        f'<th scope="row"><strong>{_path(name)}</strong> <code>{_e(row["version"])}</code>{said}'
        f'<br><span class="hb-pkg">{_path(row["package"])}</span></th>',
        f'<td data-v="{_e(state)}">{STATE_MARKS.get(state, "")}{_e(state)}{why}</td>',
        _high_cell(row, site, pages),
        *(_count_cell(row["gates"].get(g)) for g in card["gates"]),
        *(_count_cell(row["severities"].get(s)) for s in card["severities"]),
        f'<td>{row["not_checked"]}</td>',
        f"<td>{_e(seconds)}</td>",
    ]
    hidden = " hidden" if later else ""
    return f'<tr data-state="{_e(state)}" data-fails="{_e(failing)}"{dim}{hidden}>{"".join(cells)}</tr>\n'


def _high_cell(row: dict[str, Any], site: str, pages: dict[str, str]) -> str:
    def link(rule_id: str) -> str:
        page = pages.get(rule_id, "")
        if not (site and page and row["doctrine_version"]):
            return f"<code>{_e(rule_id)}</code>"
        href = f"{site}{quote(row['doctrine_version'], safe='')}/{quote(page)}"
        return f'<a href="{_e(href)}"><code>{_e(rule_id)}</code></a>'

    own = " ".join(link(r) for r in row["high_fails"])
    sdk = " ".join(link(r) for r in row["high_inherited"])
    sdk_text = f'<span class="hb-sdk">from the SDK: {sdk}</span>' if sdk else ""
    return f'<td data-v="{len(row["high_fails"])}" class="hb-high">{own}{" " if own and sdk else ""}{sdk_text}</td>'


def _legend() -> str:
    statuses = ", ".join(STATUSES)
    return (
        '<p class="hb-legend">Each count is the FAILs of that gate or severity over the rules judged there; '
        f"&ndash; means no rule of it was judged. Counts of {statuses} per gate and severity, and one letter per rule "
        "(P pass, F fail, I fail inherited from the SDK's default, N does not apply, U not checked, . absent) are in "
        "scorecard.json and scorecard.csv. ○ not audited: the row says what this machine lacked. "
        "⚠ the server did not answer, or the auditor failed.</p>\n"
    )
