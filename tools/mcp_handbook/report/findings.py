"""From a filled worksheet to findings: check every row, group by severity, note what changed since.

``build_report`` returns either a :class:`Report` or every problem found,
never both and never an exception for bad input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..export.filters import Filters, matches, parse_filters_text
from ..export.worksheet import REVIEW_FIELDS, STATUSES
from ..fields import SEVERITIES, in_profile
from ..history import RuleChange
from ..model import Corpus, Rule
from .places import Place, Problem
from .read import Filled
from .versions import Baseline, find_baseline

STATUS_BY_KEY = {s.lower(): s for s in STATUSES}
UNFILLED = "unfilled"


@dataclass(frozen=True, slots=True)
class Item:
    """One judged (or not yet judged) rule of the worksheet."""

    id: str
    title: str
    severity: str
    gate: str
    status: str
    """``Pass``, ``Fail``, ``N/A`` or ``""`` (unfilled)."""
    evidence: str
    notes: str
    place: str
    scope: str = ""
    basis: str = ""
    """The rule's authority in the worksheet's doctrine: only ``spec-*`` and ``security`` findings are violations."""
    threats: tuple[str, ...] = ()
    """What the rule guards against (CWE and OWASP MCP Top 10 ids), from the worksheet's doctrine: a worksheet
    made before the ``threats`` column existed reports them too."""
    page: str = ""
    """The rule's page in the published site of the worksheet's doctrine version (its ``page`` column; empty in a
    worksheet made before doctrine 1.4.0)."""


@dataclass(frozen=True, slots=True)
class Since:
    """What changed between the worksheet's doctrine and the current one, for the rules it concerns."""

    from_version: str
    from_ref: str
    to_version: str
    added: tuple[Rule, ...] = ()
    changed: tuple[RuleChange, ...] = ()
    retired: tuple[tuple[str, str], ...] = ()
    """(id, what became of it)"""


@dataclass(frozen=True, slots=True)
class Report:
    file: str
    format: str
    doctrine_version: str
    commit: str
    current_version: str
    filters: str
    items: tuple[Item, ...]
    since: Since | None = None
    severities: tuple[str, ...] = field(default=SEVERITIES)
    profile: str = "baseline"
    """The review profile whose HIGH failures set the exit code (``spec``, ``baseline``, ``full``)."""
    date: str = ""
    """The worksheet's date, as stamped."""
    server_name: str = ""
    server_version: str = ""
    reviewer: str = ""
    server_transport: str = ""
    """What was reviewed, how it was reached and by whom, as stamped; empty when the worksheet does not say (older
    worksheets)."""

    def counts(self) -> dict[str, dict[str, int]]:
        table = {sev: {**{s: 0 for s in STATUSES}, UNFILLED: 0} for sev in self.severities}
        for item in self.items:
            table.setdefault(item.severity, {**{s: 0 for s in STATUSES}, UNFILLED: 0})[item.status or UNFILLED] += 1
        return table

    def failures(self, severity: str) -> list[Item]:
        return [i for i in self.items if i.severity == severity and i.status == "Fail"]

    @property
    def unfilled(self) -> list[Item]:
        return [i for i in self.items if not i.status]

    def gating(self) -> list[Item]:
        """HIGH failures of rules in the report's profile: what sets the exit code."""
        return [i for i in self.failures("high") if in_profile(i.basis, self.profile)]

    @property
    def exit_code(self) -> int:
        """1 when a HIGH item of the profile failed, so CI can gate on the report; else 0."""
        return 1 if self.gating() else 0


def status_of(text: str) -> str | None:
    """The canonical status for any spelling of Pass / Fail / N/A, ``""`` for empty, None when invalid."""
    text = text.strip()
    return "" if not text else STATUS_BY_KEY.get(text.lower())


def _items(filled: Filled, rules: dict[str, Rule], version: str) -> tuple[list[Item], list[Problem]]:
    items: list[Item] = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for entry in filled.entries:
        id_cell = entry.cells.get("id")
        rule_id = entry.value("id")
        rule = rules.get(rule_id)
        if not rule_id:
            problems.append(Problem(id_cell.place if id_cell else entry.place, "the id is empty"))
        elif rule is None:
            problems.append(Problem(id_cell.place if id_cell else entry.place, f"unknown rule id {rule_id!r}: doctrine {version} has no such rule"))
        elif rule_id in seen:
            problems.append(Problem(id_cell.place if id_cell else entry.place, f"rule {rule_id} is already on {seen[rule_id]}"))
        status = status_of(entry.value("status"))
        if status is None:
            cell = entry.cells["status"]
            problems.append(Problem(cell.place, f"status {cell.value!r} is not one of {', '.join(STATUSES)} (any case), "
                                                "or empty while not yet judged"))
        if rule is None or status is None or rule_id in seen:
            continue
        seen[rule_id] = f"{entry.place.row_word} {entry.place.row}"
        items.append(Item(rule.id, rule.title, rule.severity, rule.gate, status, entry.value("evidence"), entry.value("notes"), str(entry.place),
                          scope=rule.scope, basis=rule.basis or _legacy_basis(rule), threats=rule.threats,
                          page=entry.value("page")))
    return items, problems


def _legacy_basis(rule: Rule) -> str:
    """A rule from a doctrine before ``basis`` existed: universal counted as a requirement then."""
    return "security" if rule.scope == "universal" else "practice"


def _since(baseline: Baseline, current: Corpus, ids: set[str], filters: Filters) -> Since | None:
    if baseline.changes is None:
        return None
    changes = baseline.changes
    retired_info = {str(r.get("id")): r for r in current.retired}

    def fate(rule_id: str) -> str:
        info = retired_info.get(rule_id)
        if not info:
            return "removed"
        replaced = info.get("replaced_by")
        replaced = ", ".join(map(str, replaced)) if isinstance(replaced, list) else replaced
        why = f", replaced by {replaced}" if replaced else (f": {info['reason']}" if info.get("reason") else "")
        return f"retired in {info.get('retired_in', '?')}{why}"

    since = Since(
        from_version=changes.old_version,
        from_ref=baseline.ref,
        to_version=changes.new_version,
        added=tuple(r for r in changes.added if matches(r, filters)),
        changed=tuple(c for c in changes.changed if c.id in ids),
        retired=tuple((r.id, fate(r.id)) for r in changes.removed if r.id in ids),
    )
    different = since.added or since.changed or since.retired or since.from_version != since.to_version
    return since if different else None


def _stamp(filled: Filled) -> tuple[str, str, str, Filters, list[Problem]]:
    problems = []
    version_cell = filled.stamp.get("doctrine_version")
    version = version_cell.value if version_cell else ""
    if version_cell is not None and not version:
        problems.append(Problem(version_cell.place, "the doctrine version is empty"))
    commit = filled.stamp["commit"].value if "commit" in filled.stamp else ""
    filters_cell = filled.stamp.get("filters")
    filters = parse_filters_text("")
    if filters_cell is not None:
        try:
            filters = parse_filters_text(filters_cell.value)
        except ValueError as exc:
            problems.append(Problem(filters_cell.place, str(exc)))
    return version, commit, filters_cell.value if filters_cell else "none", filters, problems


def _review(filled: Filled) -> dict[str, str]:
    """The date and what was reviewed, as the worksheet states them (empty when it does not)."""
    return {name: filled.stamp[name].value if name in filled.stamp else "" for name in ("date", *REVIEW_FIELDS)}


def sorted_problems(problems: list[Problem]) -> list[Problem]:
    """In the order a reviewer meets them in the file: by sheet, row, then column."""
    return sorted(problems, key=lambda p: (p.place.sheet, p.place.row or 0, len(p.place.column), p.place.column))


def build_report(
    filled: Filled, *, root: Path, current: Corpus, read_problems: list[Problem], profile: str = "baseline"
) -> Report | list[Problem]:
    """Check the worksheet against the doctrine it came from; all problems, or the report."""
    version, commit, filters_text, filters, problems = _stamp(filled)
    problems = [*read_problems, *problems]
    baseline = find_baseline(root, current, version=version, commit=commit) if version else None
    if isinstance(baseline, str):
        problems.append(Problem(filled.stamp["doctrine_version"].place, baseline))
    if not isinstance(baseline, Baseline):
        return sorted_problems(problems) or [Problem(Place(filled.file), "cannot tell which doctrine the worksheet was made from")]
    items, found = _items(filled, {r.id: r for r in baseline.corpus.rules}, baseline.corpus.version)
    problems += found
    if problems:
        return sorted_problems(problems)
    since = _since(baseline, current, {i.id for i in items}, filters)
    return Report(
        filled.file, filled.format, version, commit, current.version, filters_text, tuple(items), since, profile=profile,
        **_review(filled),  # type: ignore[arg-type]  # its keys: date and REVIEW_FIELDS, Report's str fields
    )
