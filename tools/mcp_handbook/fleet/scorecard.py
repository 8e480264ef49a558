"""The scorecard written out (JSON for programs, CSV for a spreadsheet, a page for people), read back, and compared
with a previous one.

A diff is the reason a fleet is audited twice: which servers came and went, which changed version or state, and
which rules got better or worse for each. Servers are matched by key, then by name and how they run (a version bump
changes the key, and is exactly what a reader wants to see as a change, not as one server gone and one new).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from ..export.files import atomic_write
from .result import read_document
from .merge import FAILED, FORMAT, FORMAT_VERSION, LETTERS, STATUSES

MAX_SCORECARD_BYTES = 200_000_000
"""A scorecard larger than this was not written by this tool (ten thousand servers take a few megabytes)."""
DIFF_FORMAT = "mcp-handbook-fleet-diff"
FIXED_COLUMNS = ("key", "name", "version", "package", "how", "state", "why", "server_name", "server_version", "sdk",
                 "exit_code", "seconds", "sandbox", "doctrine_version", "tool_version")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
"""A cell a spreadsheet would run as a formula starts with one of these; such a text cell gets a leading quote."""
CHECKED = frozenset("PFIN")


class ScorecardError(ValueError):
    """A scorecard file that cannot be read, with the file named in the message."""


def write_scorecard(card: dict[str, Any], folder: Path, *, previous: dict[str, Any] | None = None) -> list[Path]:
    """Write ``scorecard.json``, ``scorecard.csv`` and ``index.html`` in ``folder`` (each atomically: a reader
    never sees half a file), and with ``previous`` also ``diff.json`` and the page's "Changes since" section."""
    from .scorecard_page import page_html

    changes = diff(previous, card) if previous is not None else None
    files = {"scorecard.json": to_json(card), "scorecard.csv": to_csv(card), "index.html": page_html(card, changes)}
    if changes is not None:
        files["diff.json"] = json.dumps(changes, indent=1) + "\n"
    else:  # a diff left from an earlier merge into this folder would pass for this one's
        (folder / "diff.json").unlink(missing_ok=True)
    written = []
    for name, text in files.items():
        atomic_write(folder / name, text)
        written.append(folder / name)
    return written


def to_json(card: dict[str, Any]) -> str:
    """The scorecard with one server a line: a text diff of two scorecards reads server by server."""
    head = [f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in card.items() if k != "rows"]
    rows = [json.dumps(r, separators=(",", ":")) for r in card["rows"]]
    return "{\n" + ",\n".join(head) + ',\n"rows": [\n' + ",\n".join(rows) + "\n]}\n"


def csv_columns(card: dict[str, Any]) -> list[str]:
    per_gate = [f"{gate} {status}" for gate in card["gates"] for status in STATUSES]
    per_severity = [f"{severity} {status}" for severity in card["severities"] for status in STATUSES]
    return [*FIXED_COLUMNS, *per_gate, *per_severity, "high_fails", "high_inherited", "not_checked", "verdicts"]


def csv_row(card: dict[str, Any], row: dict[str, Any]) -> list[object]:
    cells: list[object] = [row.get(c) if row.get(c) is not None else "" for c in FIXED_COLUMNS]
    for table, names in (("gates", card["gates"]), ("severities", card["severities"])):
        for name in names:
            cells.extend(row[table].get(name, [0] * len(STATUSES)))
    cells += [" ".join(row["high_fails"]), " ".join(row["high_inherited"]), row["not_checked"], row["verdicts"]]
    return [safe_cell(c) for c in cells]


def safe_cell(value: object) -> object:
    """Text that a spreadsheet would run as a formula (``=HYPERLINK(...)`` as a server's name) starts with a quote;
    numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def to_csv(card: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(csv_columns(card))
    for row in card["rows"]:
        writer.writerow(csv_row(card, row))
    return out.getvalue()


def read_scorecard(path: Path) -> dict[str, Any]:
    """A scorecard written by :func:`write_scorecard`, checked enough to diff against; :class:`ScorecardError`
    naming the file otherwise."""
    card = read_document(path, fmt=FORMAT, version=FORMAT_VERSION, max_bytes=MAX_SCORECARD_BYTES, max_depth=8,
                         what="fleet scorecard", error=ScorecardError)
    rules, rows = card.get("rules"), card.get("rows")
    if not (isinstance(rules, list) and all(isinstance(r, dict) and isinstance(r.get("id"), str) for r in rules)):
        raise ScorecardError(f"{path}: \"rules\" is not a list of rules with ids")
    if not isinstance(rows, list):
        raise ScorecardError(f"{path}: \"rows\" is not a list")
    for n, row in enumerate(rows):
        if not (isinstance(row, dict) and isinstance(row.get("key"), str) and isinstance(row.get("verdicts"), str)
                and len(row["verdicts"]) == len(rules)):
            raise ScorecardError(f"{path}: rows[{n}] is not a server row (a key, and one verdict letter per rule)")
    return card


def diff(previous: dict[str, Any], current: dict[str, Any]) -> dict[str, Any]:
    """What changed from ``previous`` to ``current``: servers new and gone, and per server still here its version
    and state changes and the rules that got better (FAIL to PASS), worse (to FAIL from anything else) or were
    judged before and are not checked now."""
    pairs, new, gone = _match(previous["rows"], current["rows"])
    before_ids = [r["id"] for r in previous["rules"]]
    now_ids = [r["id"] for r in current["rules"]]
    same_order = before_ids == now_ids
    changed = []
    for old, now in pairs:
        if same_order and old["verdicts"] == now["verdicts"]:  # most servers, on a rerun: no rule to walk
            was = is_ = {}
        else:
            was, is_ = dict(zip(before_ids, old["verdicts"])), dict(zip(now_ids, now["verdicts"]))
        change = _server_change(old, now, was, is_)
        if change is not None:
            changed.append(change)
    return {
        "format": DIFF_FORMAT, "format_version": 1,
        "previous": _summary(previous), "current": _summary(current),
        "new": [_named(r) for r in new], "gone": [_named(r) for r in gone], "changed": changed,
        "totals": {"new": len(new), "gone": len(gone), "changed": len(changed),
                   **{kind: sum(len(c[kind]) for c in changed) for kind in ("better", "worse", "unchecked")}},
    }


def _match(before: list[dict[str, Any]], now: list[dict[str, Any]]) -> tuple[list[tuple[dict, dict]], list[dict], list[dict]]:
    """Rows paired by key, then by (name, how) where that names one row on each side; the rest are new or gone."""
    by_key = {r["key"]: r for r in before}
    pairs = [(by_key[r["key"]], r) for r in now if r["key"] in by_key]
    paired = {r["key"] for _, r in pairs}
    left_before = [r for r in before if r["key"] not in paired]
    left_now = [r for r in now if r["key"] not in paired]

    def unique(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
        counts: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r in rows:
            counts.setdefault((r.get("name", ""), r.get("how", "")), []).append(r)
        return {k: v[0] for k, v in counts.items() if len(v) == 1 and k[0]}

    old_by_name, now_by_name = unique(left_before), unique(left_now)
    for name, r in now_by_name.items():
        if name in old_by_name:
            pairs.append((old_by_name[name], r))
    paired_old = {id(o) for o, _ in pairs}
    paired_now = {id(n) for _, n in pairs}
    return pairs, [r for r in now if id(r) not in paired_now], [r for r in before if id(r) not in paired_old]


def _server_change(old: dict[str, Any], now: dict[str, Any], was: dict[str, str], is_: dict[str, str]) -> dict[str, Any] | None:
    absent = LETTERS["absent"]
    better, worse, unchecked = [], [], []
    for rule_id, letter in is_.items():
        before = was.get(rule_id, absent)
        if before in FAILED and letter == LETTERS["PASS"]:
            better.append(rule_id)
        elif letter in FAILED and before not in FAILED:
            worse.append(rule_id)
        elif letter == LETTERS["not checked"] and before in CHECKED:
            unchecked.append(rule_id)
    version = [old.get("version", ""), now.get("version", "")]
    state = [old.get("state", ""), now.get("state", "")]
    if not (better or worse or unchecked) and version[0] == version[1] and state[0] == state[1]:
        return None
    return {**_named(now), "previous_key": old["key"],
            "version": version if version[0] != version[1] else None, "state": state if state[0] != state[1] else None,
            "better": better, "worse": worse, "unchecked": unchecked}


def _named(row: dict[str, Any]) -> dict[str, Any]:
    return {"key": row["key"], "name": row.get("name", ""), "version": row.get("version", ""), "state": row.get("state", "")}


def _summary(card: dict[str, Any]) -> dict[str, Any]:
    return {"servers": len(card["rows"]), "doctrine_versions": card.get("doctrine_versions", {}),
            "tool_versions": card.get("tool_versions", {})}
