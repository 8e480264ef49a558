"""`basis` states a rule's authority, and `check` holds scope, `spec` and `threats` to it (HB015, HB043),
and conditions name a known key (HB012), each at the line of the field at fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_handbook import load_corpus
from mcp_handbook.export.filters import normalise, select_rules

RULE = """---
id: TRN-009
title: A rule whose authority is under test
scope: {scope}
basis: {basis}
{extra}severity: low
gate: transport
check: manual
since: "0.1.0"
---

Text.

## Why it matters

x

## How it is verified

x
{deviate}
## References

- none
"""


def _problems(tmp_path: Path, *, scope: str, basis: str, extra: str = "", deviate: bool = False) -> set[tuple[str, int, str]]:
    rules = tmp_path / "content" / "rules" / "transport"
    rules.mkdir(parents=True, exist_ok=True)
    (tmp_path / "content" / "handbook.yml").write_text('version: "1.0.0"\ngates: [{key: transport, title: T}]\n')
    text = RULE.format(scope=scope, basis=basis, extra=extra, deviate="\n## When to deviate\n\nx\n" if deviate else "")
    (rules / "r.md").write_text(text)
    from mcp_handbook.lint import lint

    return {(d.code, d.location.line, d.message) for d in lint(load_corpus(tmp_path)) if d.location.path.endswith("r.md")}


SPEC = "spec: 2025-11-25 basic/transports#stdio\n"
MUST = SPEC + 'quote: [{text: "The server MUST NOT write anything to its stdout that is not a valid MCP message."}]\n'
SHOULD = SPEC + 'quote: [{text: "The server SHOULD exit promptly."}]\n'
ATTACK = "attack: A model-chosen path such as ../../.ssh/id_ed25519 reads the user's private key.\n"


@pytest.mark.parametrize(
    ("scope", "basis", "extra", "deviate", "expected"),
    [
        ("universal", "spec-must", MUST, False, set()),
        ("universal", "spec-should", SHOULD, False, set()),
        ("universal", "security", "threats: [CWE-22, MCP05]\n" + ATTACK, False, set()),
        ("opinionated", "practice", "", True, set()),
        ("stack", "practice", "stack: Python\n", False, set()),
        ("universal", "practice", "", False, {("HB015", 4, "scope universal does not fit basis practice")}),
        ("opinionated", "spec-must", MUST, True, {("HB015", 4, "scope opinionated does not fit basis spec-must")}),
        ("universal", "spec-must", 'quote: [{text: "Servers MUST answer."}]\n', False,
         {("HB015", 5, "basis spec-must needs the `spec:` the keyword stands in")}),
        ("universal", "security", ATTACK, False, {("HB015", 5, "basis security needs `threats:` naming the weakness")}),
        ("universal", "spec-must", SPEC, False, {("HB015", 5, "basis spec-must needs `quote:`, the sentence(s) of the cited revision it rests on")}),
        ("universal", "spec-must", SHOULD, False,
         {("HB015", 7, "quote 'The server SHOULD exit promptly.' carries no MUST / MUST NOT / REQUIRED / SHALL / "
                       "SHALL NOT, which basis spec-must rests on")}),
        ("universal", "spec-should", SPEC + 'quote: [{text: "The server should exit promptly."}]\n', False,
         {("HB015", 7, "quote 'The server should exit promptly.' carries no SHOULD / SHOULD NOT / RECOMMENDED / "
                       "NOT RECOMMENDED, which basis spec-should rests on")}),
        ("universal", "security", "threats: [CWE-22]\n", False,
         {("HB015", 5, "basis security needs `attack:`, the attack it stops in one sentence")}),
        ("opinionated", "practice", "", False, {("HB043", 11, "an opinionated rule has no `## When to deviate` section")}),
        ("universal", "law", "", False, {("HB012", 5, "field 'basis' must be one of spec-must, spec-should, security, practice, not 'law'")}),
    ],
    ids=["must", "should", "security", "practice-opinion", "practice-stack", "universal-practice", "opinion-spec",
         "spec-without-spec", "security-without-threats", "spec-without-quote", "must-quoting-should", "lowercase-should",
         "security-without-attack", "opinion-without-deviate", "unknown-basis"],
)
def test_basis_holds_scope_spec_and_threats(tmp_path: Path, scope: str, basis: str, extra: str, deviate: bool, expected: set) -> None:
    assert _problems(tmp_path, scope=scope, basis=basis, extra=extra, deviate=deviate) == expected


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("threats: [CWE-22, OWASP-1]\n", "field 'threats' 'OWASP-1' is neither a CWE id (CWE-22) nor an OWASP MCP Top 10 id (MCP01 to MCP10)"),
        ("threats: [MCP11]\n", "field 'threats' 'MCP11' is neither a CWE id (CWE-22) nor an OWASP MCP Top 10 id (MCP01 to MCP10)"),
        ("qualifiers:\n  - {kind: conditional, when: \"HTTP only\"}\n",
         "field 'qualifiers' a conditional qualifier needs applies_to: a condition key, or a list of them (all must hold)"),
        ("qualifiers:\n  - {kind: conditional, applies_to: [http, on-tuesdays]}\n",
         "field 'qualifiers' unknown condition 'on-tuesdays' in applies_to"),
        ("qualifiers:\n  - {kind: empirical, observed: 2026-11-30, seen_by: me}\n",
         "field 'qualifiers' a empirical qualifier has unknown key(s) seen_by"),
    ],
    ids=["threat-not-an-id", "threat-out-of-range", "condition-without-key", "unknown-condition", "empirical-unknown-key"],
)
def test_threats_and_conditions_are_checked_on_their_line(tmp_path: Path, extra: str, message: str) -> None:
    field_is_threats = extra.startswith("threats")
    found = _problems(tmp_path, scope="universal", basis="security",
                      extra=(extra if field_is_threats else "threats: [CWE-20]\n" + extra) + ATTACK)
    line = 6 if field_is_threats else 7  # the field's own line: threats after basis (5), qualifiers after threats
    assert [(code, at) for code, at, _ in found] == [("HB012", line)], found  # one mistake, one diagnostic
    assert next(iter(found))[2].startswith(message), found


def test_conditions_and_profiles_are_read_into_the_model(tmp_path: Path) -> None:
    _problems(tmp_path, scope="universal", basis="security",
              extra="threats: [CWE-22]\nqualifiers:\n  - {kind: conditional, applies_to: [http, authorizes]}\n"
                    "  - {kind: empirical, observed: 2026-11-30}\n" + ATTACK)
    (rule,) = load_corpus(tmp_path).rules
    assert rule.conditions == ("http", "authorizes")
    assert rule.threats == ("CWE-22",)
    assert rule.profiles == ("baseline", "full")


def test_profiles_nest_and_follow_basis_in_the_real_doctrine(project_root: Path) -> None:
    corpus = load_corpus(project_root)
    chosen = {p: {r.id for r in select_rules(corpus, normalise({"profile": (p,)}))} for p in ("spec", "baseline", "full")}
    assert chosen["spec"] < chosen["baseline"] < chosen["full"] == {r.id for r in corpus.rules}
    assert all(r.basis.startswith("spec-") for r in corpus.rules if r.id in chosen["spec"])
    assert {r.id for r in corpus.rules if r.scope == "universal"} == chosen["baseline"] - {r.id for r in corpus.rules if r.scope == "stack"}
    assert not any(r.scope == "universal" and r.basis == "practice" for r in corpus.rules)
