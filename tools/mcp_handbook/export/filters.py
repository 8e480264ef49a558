"""Which rules an export holds: the ``--profile --scope --stack --gate --severity`` filters.

The same filters are written into every export's stamp (as ``gate=security;
severity=high,medium``) and read back by ``report``, so a repeat audit knows
which new rules concern it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..fields import CONDITIONS, PROFILES, SCOPES, SEVERITIES, in_profile
from ..model import Corpus, Rule

FILTER_KEYS = ("profile", "scope", "stack", "gate", "severity", "without")
"""What an export can be narrowed by, in the order the stamp lists them: the review
profile (``spec``, ``baseline``, ``full``, read from each rule's ``basis``), rule fields,
and ``without``: conditions the reviewed server does not meet (``http``, ``takes-paths``),
which leave out the rules that apply only under them. ``stack`` names the kind of server
reviewed: it keeps every general rule (universal and opinionated) plus that stack's rules,
and leaves out only other stacks' rules."""


FILTER_HELP = {
    "profile": "keep the rules of this review profile: spec (the specification's MUST/SHOULD), baseline (spec plus "
               "security: every universal rule), full (everything)",
    "stack": "keep the rules that apply to a server of this stack: every universal and opinionated rule plus this "
             "stack's rules; other stacks' rules are left out (repeatable)",
    "without": f"leave out rules that apply only when this condition holds; the server does not (repeatable; one of {', '.join(CONDITIONS)})",
}


def filter_value(rule: Rule, key: str) -> str:
    """What a rule holds for a filter key, as the site's ``data-`` attributes carry it:
    space-separated tokens for ``profile`` (the profiles holding it) and ``without`` (its conditions)."""
    if key == "profile":
        return " ".join(rule.profiles)
    if key == "without":
        return " ".join(rule.conditions)
    return str(getattr(rule, key))

Filters = dict[str, tuple[str, ...]]


def normalise(filters: Mapping[str, Iterable[str] | None] | None) -> Filters:
    """Every filter key present, values de-duplicated in the order given."""
    given = filters or {}
    return {key: tuple(dict.fromkeys(given.get(key) or ())) for key in FILTER_KEYS}


def matches(rule: Rule, filters: Mapping[str, tuple[str, ...]]) -> bool:
    for key, wanted in filters.items():
        if not wanted:
            continue
        if key == "profile":
            if not any(in_profile(rule.basis, p) for p in wanted):
                return False
        elif key == "without":
            if set(rule.conditions) & set(wanted):
                return False
        elif key == "stack":
            if rule.stack and rule.stack not in wanted:  # a general rule (no stack) applies to every stack
                return False
        elif getattr(rule, key) not in wanted:
            return False
    return True


def select_rules(corpus: Corpus, filters: Mapping[str, tuple[str, ...]]) -> list[Rule]:
    """The corpus's rules that pass every filter, in checklist order."""
    return [rule for rule in corpus.rules if matches(rule, filters)]


def unknown_values(corpus: Corpus, filters: Mapping[str, tuple[str, ...]]) -> list[str]:
    """One message per filter value no rule could ever match (a typo, usually)."""
    known = {
        "profile": PROFILES,
        "scope": SCOPES,
        "severity": SEVERITIES,
        "gate": tuple(g.key for g in corpus.gates),
        "stack": tuple(sorted({r.stack for r in corpus.rules if r.stack})),
        "without": tuple(CONDITIONS),
    }
    problems = []
    for key, wanted in filters.items():
        for value in wanted:
            if value not in known[key]:
                choices = ", ".join(known[key]) or "none in this doctrine"
                problems.append(f"unknown {key} {value!r} (known: {choices})")
    return problems


def filters_text(filters: Mapping[str, tuple[str, ...]]) -> str:
    """``gate=security; severity=high,medium``, or ``none``."""
    return "; ".join(f"{k}={','.join(v)}" for k, v in filters.items() if v) or "none"


def parse_filters_text(text: str) -> Filters:
    """Read back :func:`filters_text`; raise ValueError naming the part that does not parse."""
    text = (text or "").strip()
    if text.lower() in ("", "none"):
        return normalise(None)
    found: dict[str, list[str]] = {}
    for part in text.split(";"):
        key, sep, values = part.strip().partition("=")
        if not sep or key.strip() not in FILTER_KEYS:
            raise ValueError(f"filter {part.strip()!r} is not KEY=VALUE[,VALUE] with KEY one of {', '.join(FILTER_KEYS)}")
        found.setdefault(key.strip(), []).extend(v.strip() for v in values.split(",") if v.strip())
    return normalise(found)
