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
BASES = ("spec-must", "spec-should", "security", "practice")
"""A rule's authority: the specification's MUST or SHOULD for this exact claim, an
exploitable weakness without it, or this handbook's recommendation."""
SCOPES_FOR_BASIS = {
    "spec-must": ("universal", "stack"),
    "spec-should": ("universal", "stack"),
    "security": ("universal", "stack"),
    "practice": ("opinionated", "stack"),
}
"""Which scopes each basis allows: ``universal`` is earned by the specification or
by a realistic exploit, never by this handbook's preference."""
FINDING_KIND = {"spec-must": "spec violation", "spec-should": "spec violation", "security": "security finding", "practice": "recommendation"}
"""How a failed rule reads in a report or an audit, by its basis: an opinion never reads as a violation."""
PROFILES = ("spec", "baseline", "full")
"""Review profiles, each a superset of the one before (like ASVS levels)."""
PROFILE_BASES = {
    "spec": ("spec-must", "spec-should"),
    "baseline": ("spec-must", "spec-should", "security"),
    "full": BASES,
}
PROFILE_MEANING = {
    "spec": "what the MCP specification requires or recommends (spec-must and spec-should rules)",
    "baseline": "the specification plus security: every universal rule (the default)",
    "full": "everything, this handbook's opinions and stack rules included",
}
THREAT_PATTERN = re.compile(r"^(CWE-[1-9]\d{0,4}|MCP\d\d)$")
"""How a threat id is written. Whether an ``MCPnn`` id is a category of the pinned list is the table's
call (``threats.CATEGORIES``), checked by ``lint.threat_categories``, so the list lives in one place."""
CONDITIONS: dict[str, str] = {
    "stdio": "the server speaks the stdio transport",
    "http": "the server is reachable over Streamable HTTP",
    "legacy-era": "the server speaks a handshake-era revision (2025-11-25 or older)",
    "modern-era": "the server speaks the 2026-07-28 revision",
    "spawns-processes": "the server starts child processes",
    "takes-paths": "a tool takes a file-system path",
    "fetches-urls": "a tool fetches a URL it is given",
    "declares-output-schema": "a tool declares an outputSchema",
    "pages-lists": "the server pages list results (it hands out nextCursor)",
    "authorizes": "the server authorizes its callers with OAuth access tokens",
    "calls-apis-for-users": "the server calls other APIs on behalf of the users who call it",
    "mutates-state": "a tool changes state outside the server (writes, deletes, sends)",
    "long-running": "an operation can take longer than a client's request timeout",
    "logging-capability": "the server declares the logging capability",
    "sensitive-data": "the server handles personal, payment or health data, credentials, several users, or runs code",
    "shared-state": "the server needs state or setup that outlives one client session",
    "several-servers": "several MCP servers are offered from one deployment",
    "operated": "you operate the server and someone reads what comes back from it",
}
"""The machine-readable preconditions a ``conditional`` qualifier may name in
``applies_to``: the site's and worksheet's filters, the exports and the auditor
read them (a rule whose condition does not hold is N/A, *does not apply*)."""
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


QUALIFIER_KEYS = {"empirical": {"kind", "observed", "what"}, "conditional": {"kind", "applies_to", "when"}}


def condition_keys(qualifier: Mapping[str, Any]) -> tuple[str, ...]:
    """The ``applies_to`` keys of a conditional qualifier (a key or a list of keys; all must hold)."""
    value = qualifier.get("applies_to")
    return tuple(value) if isinstance(value, list) else (value,) if isinstance(value, str) else ()


def _qualifiers(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list):
        return "must be a list of {kind: empirical, observed: DATE} or {kind: conditional, applies_to: KEY}"
    for item in value:
        if not isinstance(item, dict) or item.get("kind") not in QUALIFIER_KINDS:
            return f"each qualifier needs kind: empirical or conditional, got {item!r}"
        unknown = sorted(set(item) - QUALIFIER_KEYS[item["kind"]])
        if unknown:
            return f"a {item['kind']} qualifier has unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(QUALIFIER_KEYS[item['kind']]))})"
        if item["kind"] == "empirical" and not isinstance(item.get("observed"), _dt.date):
            return "an empirical qualifier needs observed: YYYY-MM-DD (the date it was seen)"
        if item["kind"] == "conditional":
            keys = condition_keys(item)
            if not keys or not all(isinstance(k, str) for k in keys):
                return "a conditional qualifier needs applies_to: a condition key, or a list of them (all must hold)"
            bad = [k for k in keys if k not in CONDITIONS]
            if bad:
                return f"unknown condition {bad[0]!r} in applies_to (known: {', '.join(CONDITIONS)})"
            if "when" in item and not (isinstance(item["when"], str) and item["when"].strip()):
                return "when: must be the precondition in words, when given"
    return None


def _threats(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list) or not value:
        return "must be a non-empty list of CWE ids (CWE-22) and OWASP MCP Top 10 ids (MCP01 to MCP10)"
    bad = [v for v in value if not isinstance(v, str) or not THREAT_PATTERN.match(v)]
    if bad:
        return f"{bad[0]!r} is neither a CWE id (CWE-22) nor an OWASP MCP Top 10 id (MCP01 to MCP10)"
    return None


def _changelog(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list) or not all(
        isinstance(v, dict) and isinstance(v.get("version"), str) and isinstance(v.get("change"), str) for v in value
    ):
        return "must be a list of {version: 'X.Y.Z', change: TEXT}"
    return None


KEYWORDS = {
    "spec-must": ("MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT"),
    "spec-should": ("SHOULD", "SHOULD NOT", "RECOMMENDED", "NOT RECOMMENDED"),
}
"""The requirement keywords (BCP 14, in capitals, as the specification writes them) a quote must carry for a
``spec-*`` basis: a ``spec-must`` rule rests on a MUST, never on a SHOULD."""
_KEYWORD = re.compile(r"\b(MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|NOT RECOMMENDED|RECOMMENDED)\b")


def keywords_in(text: str) -> tuple[str, ...]:
    """The requirement keywords a sentence carries, in capitals, in order."""
    return tuple(_KEYWORD.findall(text))


def _quotes(value: Any, fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list) or not value:
        return "must be a list of {text: SENTENCE, from: 'REVISION page#section'} (from: defaults to spec:)"
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
            return f"each quote needs text: the sentence, exactly as the specification writes it; got {item!r}"
        unknown = sorted(set(item) - {"text", "from"})
        if unknown:
            return f"a quote has unknown key(s) {', '.join(unknown)} (known: from, text)"
        if "from" in item and _spec(item["from"], fields):
            return f"a quote's from: must name a revision and a section, e.g. '2025-11-25 basic/transports#stdio', not {item['from']!r}"
    return None


FIX_LIMIT = 120
"""Characters a ``fix:`` line may take: one line of an audit summary, beside the rule's id."""


def _fix(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "must be the fix in one imperative sentence, what the author changes"
    if "\n" in value.strip() or len(value.strip()) > FIX_LIMIT:
        return f"must be one line of at most {FIX_LIMIT} characters (it is {len(value.strip())})"
    return None


def _attack(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, str) or len(value.split()) < 6:
        return "must be the attack in one sentence: who does what, and what they get"
    return None


CLAUSE_KEYS = {"says", "seen_by", "unchecked"}


def _clauses(value: Any, _fields: Mapping[str, Any]) -> str | None:
    if not isinstance(value, list) or not value:
        return "must be a list of {says: CLAUSE, seen_by: [REASON, ...]} or {says: CLAUSE, unchecked: WHY}"
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("says"), str) or not item["says"].strip():
            return f"each clause needs says: the clause in words; got {item!r}"
        unknown = sorted(set(item) - CLAUSE_KEYS)
        if unknown:
            return f"clause {item['says']!r} has unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(CLAUSE_KEYS))})"
        seen, unchecked = item.get("seen_by"), item.get("unchecked")
        if (seen is None) == (unchecked is None):
            return f"clause {item['says']!r} needs exactly one of seen_by: [probe reasons] or unchecked: why no probe can see it"
        if seen is not None and (not isinstance(seen, list) or not seen or not all(isinstance(r, str) and r for r in seen)):
            return f"clause {item['says']!r}: seen_by must be a non-empty list of the probe's reason codes"
        if unchecked is not None and (not isinstance(unchecked, str) or len(unchecked.split()) < 4):
            return f"clause {item['says']!r}: unchecked must say, in a sentence, why no probe observes it from outside"
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
    Field("basis", _one_of(BASES), True,
          "spec-must | spec-should (the cited `spec` says so) | security (cite `threats`) | practice (this handbook's advice)"),
    Field("threats", _threats, False, "weaknesses the rule prevents: CWE ids and OWASP MCP Top 10 ids; required when basis is security"),
    Field("severity", _one_of(SEVERITIES), True, "high | medium | low"),
    Field("gate", _text, True, "checklist section key from content/handbook.yml"),
    Field("check", _one_of(CHECKS), True, "automated (a probe proves it) | manual"),
    Field("probe", _text, False, "probe name; required when check is automated"),
    Field("seam", _text, False, "reference-server seam the snippets replace"),
    Field("spec", _spec, False, "specification revision and section, for protocol rules"),
    Field("since", _version, True, "doctrine version that introduced the rule"),
    Field("summary", _text, False, "one-sentence claim for tables and the worksheet"),
    Field("fix", _fix, False, "automated rules: what an author changes when the probe fails, one imperative sentence of at most 120 characters"),
    Field("quote", _quotes, False,
          "spec-must / spec-should: the exact sentence(s) of the cited revision the rule rests on, with the keyword of its basis"),
    Field("attack", _attack, False, "basis security: the attack the rule stops, in one sentence"),
    Field("clauses", _clauses, False, "automated rules: the claim as clauses, each seen_by probe reasons or unchecked with why"),
    Field("related", _id_list, False, "ids of related rules"),
    Field("changelog", _changelog, False, "list of {version, change}"),
)

FIELDS_BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}

SPEC_CITATION = re.compile(r"\b(?:MCP|Model Context Protocol)\s+spec(?:ification)?\b|modelcontextprotocol\.io/spec", re.I)
"""A sentence that cites the MCP specification. A rule whose ``## References``
cite it is a *protocol rule*: it speaks for the protocol, and the protocol's
rules differ between revisions, so it must say which revision it speaks for."""


def basis_problems(data: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """Every (field, problem, hint) where ``basis`` and the fields it governs disagree.

    Only combinations of valid values are judged: an invalid value is already HB012."""
    basis, scope = data.get("basis"), data.get("scope")
    if basis not in BASES:
        return []
    problems = []
    if scope in SCOPES and scope not in SCOPES_FOR_BASIS[basis]:
        if scope == "universal":
            hint = "universal needs basis spec-must, spec-should (cite `spec:`) or security (cite `threats:`); otherwise make it opinionated"
        else:
            hint = f"basis {basis} allows scope {' or '.join(SCOPES_FOR_BASIS[basis])}; an opinion is basis practice"
        problems.append(("scope", f"scope {scope} does not fit basis {basis}", hint))
    if basis.startswith("spec-") and not data.get("spec"):
        problems.append(("basis", f"basis {basis} needs the `spec:` the keyword stands in",
                         "add `spec: REVISION page#section`, e.g. spec: 2025-11-25 basic/transports#stdio"))
    if basis == "security" and not data.get("threats"):
        problems.append(("basis", "basis security needs `threats:` naming the weakness",
                         "add e.g. `threats: [CWE-22, MCP05]` (CWE ids, OWASP MCP Top 10 ids)"))
    if basis == "security" and not data.get("attack"):
        problems.append(("basis", "basis security needs `attack:`, the attack it stops in one sentence",
                         "add e.g. `attack: A model-chosen path such as ../../.ssh/id_ed25519 reads the user's private key.`"))
    if basis in KEYWORDS:
        quotes = data.get("quote")
        if not quotes:
            problems.append(("basis", f"basis {basis} needs `quote:`, the sentence(s) of the cited revision it rests on",
                             f"add `quote: [{{text: \"Servers {KEYWORDS[basis][0]} ...\"}}]`, copied exactly from the `spec:` section"))
        elif isinstance(quotes, list):
            for item in quotes:
                text = item.get("text") if isinstance(item, dict) else None
                if isinstance(text, str) and not set(keywords_in(text)) & set(KEYWORDS[basis]):
                    problems.append(("quote", f"quote {text[:60]!r} carries no {' / '.join(KEYWORDS[basis])}, which basis {basis} rests on",
                                     "quote the sentence with the keyword, or change the basis to what the text says"))
    return problems


def in_profile(basis: str, profile: str) -> bool:
    """Whether a rule with this basis belongs to a review profile."""
    return basis in PROFILE_BASES.get(profile, ())


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
