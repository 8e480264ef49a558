"""What a doctrine change means for the doctrine's version.

The meaning is written for people in ``content/versioning.md``; this module is
that page as a table. In short: MAJOR when something the doctrine asked for is
withdrawn or a finding becomes a blocker (a rule retired or removed, severity
raised to high); MINOR when the doctrine asks for something new or different (a
rule added; its claim, scope, stack, qualifiers, severity, check or cited
revision changed); PATCH when it asks for the same thing, said or proved better
(prose, summary, references, code, probe, seam, gate, related).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..history import Changes, RuleChange
from ..model import Rule
from ..parse import HANDBOOK_FILE, RULES_DIR

HANDBOOK = f"content/{HANDBOOK_FILE}"

LEVELS = ("patch", "minor", "major")
SEVERITY_RANK = {"low": 1, "medium": 2, "high": 3}

FIELD_LEVELS: dict[str, str] = {
    "title": "minor", "scope": "minor", "stack": "minor", "basis": "minor", "qualifiers": "minor", "check": "minor", "spec": "minor",
    "threats": "patch", "summary": "patch", "gate": "patch", "probe": "patch", "seam": "patch", "related": "patch", "since": "patch",
}
"""The level of a changed front-matter field; severity is judged by direction (see ``_severity``)."""

FIELD_NOTES: dict[str, str] = {
    "title": "claim reworded: make it major if the claim is reversed",
    "scope": "scope changed",
    "basis": "its authority changed: what the specification requires versus what the handbook advises",
    "check": "how it is checked changed",
    "spec": "now speaks for another specification revision or section",
}


@dataclass(frozen=True, slots=True)
class Impact:
    """One thing a change does, and the release level it calls for."""

    rule_id: str
    kind: str
    """``added``, ``changed``, ``retired``, ``removed`` (gone without retirement) or ``registry``."""
    level: str
    """``major``, ``minor`` or ``patch``."""
    details: tuple[str, ...] = ()
    """Human sentences: ``severity medium -> high (raised to high)``, ``correct1 changed``."""
    where: str = ""
    """``path:line`` to look at: the rule file, or its ``retired:`` entry in handbook.yml."""


@dataclass(frozen=True, slots=True)
class Note:
    """Something the contributor should fix or know, where to look, and how."""

    where: str
    """``path:line``."""
    message: str
    hint: str

    def __str__(self) -> str:
        return f"{self.where}: note {self.message} (hint: {self.hint})"


@dataclass(frozen=True, slots=True)
class Assessment:
    """A comparison of two doctrines, judged: what to call the next release, and why."""

    changes: Changes
    impacts: tuple[Impact, ...]
    level: str | None
    """The highest level among the impacts; None when nothing changed."""
    suggested: str
    """The next version: the base version bumped by ``level`` (the base version when nothing changed)."""
    notes: tuple[Note, ...]
    old_rules: dict[str, Rule]
    new_rules: dict[str, Rule]


def _max(levels: list[str]) -> str | None:
    return max(levels, key=LEVELS.index) if levels else None


def next_version(version: str, level: str | None) -> str:
    """``0.3.1`` bumped by ``minor`` is ``0.4.0``; an unreadable version starts again at 0.0.0."""
    parts = version.split(".")
    major, minor, patch = (int(p) for p in parts) if len(parts) == 3 and all(p.isdigit() for p in parts) else (0, 0, 0)
    if level == "major":
        return f"{major + 1}.0.0"
    if level == "minor":
        return f"{major}.{minor + 1}.0"
    if level == "patch":
        return f"{major}.{minor}.{patch + 1}"
    return version


def _severity(old: str, new: str) -> tuple[str, str]:
    if new == "high" and old != "high":
        return "major", f"severity {old} -> {new} (raised to high: findings now block)"
    raised = SEVERITY_RANK.get(new, 0) > SEVERITY_RANK.get(old, 0)
    return "minor", f"severity {old} -> {new} ({'raised' if raised else 'lowered'})"


def _handbook(rule: Rule) -> str:
    return rule.path.split(f"/{RULES_DIR}/", 1)[0] + "/handbook.yml"


def _changed(change: RuleChange, rule: Rule) -> Impact:
    levels, details = [], []
    for name, old, new in change.fields:
        if name == "severity":
            level, text = _severity(old, new)
        else:
            level = FIELD_LEVELS.get(name, "minor")
            note = FIELD_NOTES.get(name)
            text = f"{name}: {old or '(none)'} -> {new or '(none)'}" + (f" ({note})" if note else "")
        levels.append(level)
        details.append(text)
    if change.blocks:
        levels.append("patch")
        details.append("code: " + ", ".join(change.blocks))
    if change.body_changed and not change.blocks:
        levels.append("patch")
        details.append("prose changed")
    elif change.body_changed:
        details.append("prose changed")
    return Impact(change.id, "changed", _max(levels) or "patch", tuple(details), f"{rule.path}:1")


def _retirements(changes: Changes, new_rules: dict[str, Rule]) -> list[Impact]:
    registered = {str(e.get("id")): e for e in changes.retired}
    impacts = []
    for rule in changes.removed:
        entry = registered.pop(rule.id, None)
        if entry is None:
            impacts.append(Impact(rule.id, "removed", "major", ("gone without an entry in `retired:`",), f"{_handbook(rule)}:1"))
            continue
        replaced = entry.get("replaced_by")
        replaced_text = ", ".join(replaced) if isinstance(replaced, list) else replaced or f"nothing ({entry.get('reason', 'no reason given')})"
        detail = f"retired in {entry.get('retired_in', '?')}, replaced by {replaced_text}"
        impacts.append(Impact(rule.id, "retired", "major", (detail,), f"{_handbook(rule)}:{entry.get('line', 1)}"))
    for rule_id in (i for i in registered if i not in new_rules):  # one still present is an error note
        line = registered[rule_id].get("line", 1)
        impacts.append(Impact(rule_id, "registry", "patch", ("recorded in `retired:` (the rule was already gone)",), f"{HANDBOOK}:{line}"))
    return impacts


def _retired_but_present(changes: Changes, new_rules: dict[str, Rule]) -> list[Note]:
    """A `retired:` entry for a rule that is still there: an error, whatever else the change does."""
    return [
        Note(f"{HANDBOOK}:{e.get('line', 1)}", f"error: {e.get('id')} is retired but its rule is still at {new_rules[str(e.get('id'))].path}",
             "delete the rule file, or remove the `retired:` entry")
        for e in changes.retired
        if str(e.get("id")) in new_rules
    ]


def _notes(changes: Changes, impacts: list[Impact], suggested: str) -> list[Note]:
    notes = [
        Note(f"{r.path}:1", f"{r.id} says since \"{r.since}\", but the release that ships it is {suggested}", f'write `since: "{suggested}"`')
        for r in changes.added
        if r.since != suggested
    ]
    notes += [
        Note(i.where, f"{i.rule_id} was removed without retirement; ids are never reused",
             f'add `- {{id: {i.rule_id}, retired_in: "{suggested}", replaced_by: NEW-ID}}` under `retired:` (or `replaced_by: null` with `reason:`)')
        for i in impacts
        if i.kind == "removed"
    ]
    retired_now = {i.rule_id: i for i in impacts if i.kind == "retired"}
    notes += [
        Note(retired_now[e["id"]].where, f"{e['id']} says retired_in \"{e.get('retired_in')}\", but the release that retires it is {suggested}",
             f'write `retired_in: "{suggested}"`')
        for e in changes.retired
        if e.get("id") in retired_now and e.get("retired_in") != suggested
    ]
    if impacts and changes.new_version not in (changes.old_version, suggested):
        notes.append(Note(f"{HANDBOOK}:1", f"version is {changes.new_version}, but these changes call for {suggested}",
                          "a reviewer may raise the bump, never lower it"))
    return notes


def _with_proofs(impacts: list[Impact], proofs: dict[str, tuple[str, ...]], new_rules: dict[str, Rule]) -> list[Impact]:
    """Add how each rule's proof changed (its probe, its recorded verdicts) to its impact; a rule changed only
    there gets a patch-level impact of its own."""
    seen = {i.rule_id for i in impacts}
    out = [dataclasses.replace(i, details=(*i.details, *proofs.get(i.rule_id, ()))) for i in impacts]
    out += [Impact(rule_id, "changed", "patch", details, f"{new_rules[rule_id].path}:1")
            for rule_id, details in sorted(proofs.items()) if rule_id not in seen and rule_id in new_rules]
    return out


def assess(
    changes: Changes, *, old_rules: dict[str, Rule], new_rules: dict[str, Rule], unreadable: frozenset[str] = frozenset(),
    proofs: dict[str, tuple[str, ...]] | None = None,
) -> Assessment:
    """Judge ``changes``: one impact per rule touched, the release level, the next version.

    A rule whose file is in ``unreadable`` (there, but it does not parse) is not
    counted as removed: its fate is unknown until ``check`` is clean.
    """
    unknown = [r for r in changes.removed if r.path in unreadable]
    changes = dataclasses.replace(changes, removed=tuple(r for r in changes.removed if r not in unknown))
    impacts = [Impact(r.id, "added", "minor", (f"{r.gate}, {r.severity}, {r.scope}",), f"{r.path}:1") for r in changes.added]
    impacts += [_changed(c, new_rules[c.id]) for c in changes.changed]
    impacts += _retirements(changes, new_rules)
    impacts = _with_proofs(impacts, proofs or {}, new_rules)
    level = _max([i.level for i in impacts])
    suggested = next_version(changes.old_version, level)
    notes = [Note(f"{r.path}:1", f"{r.id} was not compared: the file does not parse", "run `mcp-handbook check`") for r in unknown]
    notes += _retired_but_present(changes, new_rules)
    notes += _notes(changes, impacts, suggested)
    return Assessment(changes, tuple(impacts), level, suggested, tuple(notes), old_rules, new_rules)
