"""The rule front-matter format: one table of fields and their checks.

Each check is a plain function ``(value, fields) -> error message | None``.
Adding a field means adding one row here.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

SCOPES = ("universal", "opinionated", "stack")
SEVERITIES = ("high", "medium", "low")
CHECKS = ("automated", "manual")
QUALIFIER_KINDS = ("empirical", "conditional")
ID_PATTERN = re.compile(r"^[A-Z]{2,5}-\d{3}$")
VERSION_PATTERN = re.compile(r"^\d+\.\d+\.\d+$")
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
SPEC_PATTERN = re.compile(rf"^({'|'.join(REVISIONS)})\b\s+\S")


def _text(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "must be a non-empty string"
    return None


def _one_of(choices: tuple[str, ...]) -> Callable[[Any, Mapping[str, Any]], str | None]:
    def check(value: Any, _fields: Mapping[str, Any]) -> str | None:
        if value not in choices:
            return f"must be one of {', '.join(choices)}, not {value!r}"
        return None

    return check


def _rule_id(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        return f"must look like AREA-NNN (e.g. SEC-004), not {value!r}"
    return None


def _version(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, str) or not VERSION_PATTERN.match(value):
        return f"must be a doctrine version MAJOR.MINOR.PATCH in quotes, not {value!r}"
    return None


def _spec(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, str) or not SPEC_PATTERN.match(value):
        return f"must name a revision and a section, e.g. '2025-11-25 basic/transports#stdio', not {value!r}"
    return None


def _id_list(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list) or not all(isinstance(v, str) and ID_PATTERN.match(v) for v in value):
        return "must be a list of rule ids"
    return None


def _qualifiers(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list):
        return "must be a list of {kind: empirical, observed: DATE} or {kind: conditional, when: TEXT}"
    for item in value:
        if not isinstance(item, dict) or item.get("kind") not in QUALIFIER_KINDS:
            return f"each qualifier needs kind: empirical or conditional, got {item!r}"
        if item["kind"] == "empirical" and not isinstance(item.get("observed"), _dt.date):
            return "an empirical qualifier needs observed: YYYY-MM-DD (the date it was seen)"
        if item["kind"] == "conditional" and not (isinstance(item.get("when"), str) and item["when"].strip()):
            return "a conditional qualifier needs when: the precondition, in words"
    return None


def _changelog(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list) or not all(
        isinstance(v, dict) and isinstance(v.get("version"), str) and isinstance(v.get("change"), str) for v in value
    ):
        return "must be a list of {version: 'X.Y.Z', change: TEXT}"
    return None


@dataclass(frozen=True, slots=True)
class Field:
    """One front-matter key."""

    name: str
    check: Callable[[Any, Mapping[str, Any]], str | None]
    required: bool
    help: str


FIELDS: tuple[Field, ...] = (
    Field("id", _rule_id, True, "stable id AREA-NNN, never reused"),
    Field("title", _text, True, "the claim, short, imperative"),
    Field("scope", _one_of(SCOPES), True, "universal | opinionated | stack"),
    Field("stack", _text, False, "stack label; required when scope is stack"),
    Field("qualifiers", _qualifiers, False, "empirical (observed date) / conditional (precondition)"),
    Field("severity", _one_of(SEVERITIES), True, "high | medium | low"),
    Field("gate", _text, True, "checklist section key from content/handbook.yml"),
    Field("check", _one_of(CHECKS), True, "automated (a probe proves it) | manual"),
    Field("probe", _text, False, "probe name; required when check is automated"),
    Field("seam", _text, False, "reference-server seam the snippets replace"),
    Field("spec", _spec, False, "specification revision and section, for protocol rules"),
    Field("since", _version, True, "doctrine version that introduced the rule"),
    Field("summary", _text, False, "one-sentence claim for tables and the worksheet"),
    Field("related", _id_list, False, "ids of related rules"),
    Field("changelog", _changelog, False, "list of {version, change}"),
)

FIELDS_BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}

SPEC_CITATION = re.compile(r"\b(?:MCP|Model Context Protocol)\s+spec(?:ification)?\b|modelcontextprotocol\.io/spec", re.I)
"""A sentence that cites the MCP specification. A rule whose ``## References``
cite it is a *protocol rule*: it speaks for the protocol, and the protocol's
rules differ between revisions, so it must say which revision it speaks for."""


def cites_spec_without_revision(text: str) -> bool:
    """True for a reference to the MCP specification that names no revision (HB014
    when the rule has no ``spec:`` either)."""
    return bool(SPEC_CITATION.search(text)) and not any(r in text for r in REVISIONS)


def _replacement(value: Any, entry: Mapping[str, Any]) -> str | None:
    if value is None:
        reason = entry.get("reason")
        return None if isinstance(reason, str) and reason.strip() else "is null, so the entry needs `reason:` saying why nothing replaces the rule"
    ids = value if isinstance(value, list) else [value]
    if not ids or not all(isinstance(v, str) and ID_PATTERN.match(v) for v in ids):
        return f"must be a rule id, a list of rule ids, or null (with `reason:`), not {value!r}"
    return None


RETIREMENT_FIELDS: tuple[Field, ...] = (
    Field("id", _rule_id, True, "the retired rule's id, AREA-NNN"),
    Field("title", _text, False, "the retired rule's title, for readers who meet the id in an old worksheet"),
    Field("retired_in", _version, True, "the doctrine version that retired it, in quotes"),
    Field("replaced_by", _replacement, True, "the id (or list of ids) that replaced it, or null with `reason:`"),
    Field("reason", _text, False, "why it was retired, in one sentence"),
)
"""One entry of ``retired:`` in ``content/handbook.yml``: an id is retired, never deleted,
so an old worksheet row or link can always be traced to what replaced it."""


def retirement_problems(entry: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every (problem, hint) of one ``retired:`` entry; empty when it is valid."""
    known = {f.name for f in RETIREMENT_FIELDS}
    problems = [(f"unknown key {k!r}", f"known keys: {', '.join(sorted(known))}") for k in entry if k not in known]
    for spec in RETIREMENT_FIELDS:
        if spec.name not in entry:
            if spec.required:
                problems.append((f"missing {spec.name!r}", f"add `{spec.name}:` ({spec.help})"))
            continue
        problem = spec.check(entry[spec.name], entry)
        if problem:
            problems.append((f"{spec.name!r} {problem}", spec.help))
    return problems
