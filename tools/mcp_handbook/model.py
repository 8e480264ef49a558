"""The one parsed model of the doctrine: rules, their snippets, and diagnostics.

Every reader (linter, snippet extractor, pytest plugin, site, exporters,
auditor) takes a :class:`Corpus`; none of them parses markdown itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .fields import PROFILES, condition_keys, in_profile

SnippetKind = Literal["wrong", "correct", "example"]
"""A WRONG or CORRECT block, or any other fenced block of a rule (an *example*: run too, never proved)."""


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a content file, printed the way editors jump to it."""

    path: str
    """Path relative to the project root, with forward slashes."""
    line: int
    """1-based line number."""
    end_line: int | None = None
    """Last line of a span, when the place is a span (a code block)."""

    def __str__(self) -> str:
        if self.end_line is not None and self.end_line != self.line:
            return f"{self.path}:{self.line}-{self.end_line}"
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in the content; never an exception."""

    location: Location
    """Where the problem is."""
    code: str
    """A stable code such as ``HB012``; documented in CONTRIBUTING.md."""
    message: str
    """What is wrong, in one sentence."""
    hint: str = ""
    """How to fix it, in one line."""

    def __str__(self) -> str:
        text = f"{self.location.path}:{self.location.line}: {self.code} {self.message}"
        return f"{text} (hint: {self.hint})" if self.hint else text


@dataclass(frozen=True, slots=True)
class Snippet:
    """A WRONG or CORRECT code block of a rule."""

    rule_id: str
    """The id of the rule the block belongs to."""
    kind: SnippetKind
    """``wrong`` must fail the rule's probe, ``correct`` must pass it."""
    index: int
    """1-based position among the rule's blocks of the same kind."""
    language: str
    """The fence language; only ``python`` blocks are executable."""
    code: str
    """The block's text, exactly as written."""
    location: Location
    """The fence span: opening fence line to closing fence line."""
    code_line: int
    """The file line of the first line of code (fence line + 1)."""
    seam: str | None
    """The reference-server seam this block replaces (or None for display-only code)."""
    title: str = ""
    """An optional label written in the fence (``title="..."``)."""
    raises: tuple[str, ...] = ()
    """Exception class names this block raises in its own code *as the behaviour it shows* (``raises=SyntaxError``):
    a WRONG tool that evaluates its input fails on a payload; any other exception from its code makes it broken."""
    expect: tuple[str, ...] = ()
    """For a WRONG block: the probe's reason(s) it must fail with (``expect=a,b``); empty means any of the probe's own."""
    promise: str = ""
    """The check this block is run against when no probe proves it (``promise=NAME``, a check in
    :mod:`mcp_handbook.promises`): a CORRECT block must keep it, a WRONG block must break it."""
    needs: tuple[str, ...] = ()
    """Preludes (``needs=a,b``, from :data:`mcp_handbook.promises.PRELUDES`) run before the block: the names a
    fragment uses without defining them."""
    norun: str = ""
    """Why the block cannot be run (``norun="..."``), shown on its page; every other block is run."""
    same_as: str = ""
    """The block whose code this one is (``same-as=SEC-021:correct1``): its fence is empty, and the parser gives it
    that block's code, so the two rules show and prove one source."""

    @property
    def name(self) -> str:
        """The snippet's stable name, used as test id and file stem."""
        return f"{self.rule_id}.{self.kind}{self.index}"


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of the doctrine: front matter fields plus its body."""

    id: str
    """Stable id, never reused (``SEC-001``)."""
    title: str
    """The claim, short."""
    scope: str
    """``universal``, ``opinionated`` or ``stack``."""
    severity: str
    """``high``, ``medium`` or ``low``."""
    gate: str
    """The checklist section (a gate key of ``content/handbook.yml``)."""
    check: str
    """``automated`` (a probe proves it) or ``manual`` (a reviewer judges)."""
    location: Location
    """The rule file, line 1."""
    body: str
    """The markdown after the front matter."""
    body_line: int
    """The file line on which the body starts."""
    stack: str = ""
    """The stack label, when the scope is ``stack``."""
    basis: str = ""
    """The rule's authority: ``spec-must``, ``spec-should``, ``security`` or ``practice``."""
    threats: tuple[str, ...] = ()
    """Weaknesses the rule prevents: CWE ids and OWASP MCP Top 10 ids."""
    qualifiers: tuple[dict, ...] = ()
    """``empirical`` (with ``observed``) and ``conditional`` (with ``applies_to``) qualifiers."""
    probe: str = ""
    """The probe that proves an automated rule."""
    seam: str = ""
    """The default seam of the rule's snippets."""
    spec: str = ""
    """Specification revision and section a protocol rule speaks for."""
    since: str = ""
    """Doctrine version that introduced the rule."""
    summary: str = ""
    """One-sentence claim (the first paragraph of the body when not given)."""
    fix: str = ""
    """Automated rules: what an author changes when the probe fails, one imperative sentence (an audit prints it
    beside the finding)."""
    related: tuple[str, ...] = ()
    """Ids of rules this one points to."""
    quotes: tuple[dict, ...] = ()
    """``spec-*`` rules: the sentences of the specification the rule rests on, ``{text, from}``."""
    attack: str = ""
    """``security`` rules: the attack the rule stops, in one sentence."""
    clauses: tuple[dict, ...] = ()
    """Automated rules: the claim as clauses, each ``{says, seen_by: [reasons]}`` or ``{says, unchecked: why}``."""
    examples: tuple[Snippet, ...] = ()
    """Fenced blocks that are neither WRONG nor CORRECT (kind ``example``): run by the tests, never proved."""
    changelog: tuple[dict, ...] = ()
    """The rule's own history: ``{version, change}`` entries."""
    snippets: tuple[Snippet, ...] = ()
    """WRONG and CORRECT blocks in file order."""
    sections: tuple[str, ...] = ()
    """The body's level-2 headings, in order."""
    field_lines: tuple[tuple[str, int], ...] = ()
    """Each front-matter field with the file line it stands on."""

    @property
    def path(self) -> str:
        return self.location.path

    def line_of(self, field_name: str) -> int:
        """The line of a front-matter field (line 1, the file, when it is not written)."""
        return next((line for name, line in self.field_lines if name == field_name), 1)

    @property
    def conditions(self) -> tuple[str, ...]:
        """The condition keys that must all hold for the rule to apply (empty: it always applies)."""
        return tuple(k for q in self.qualifiers if q.get("kind") == "conditional" for k in condition_keys(q))

    @property
    def profiles(self) -> tuple[str, ...]:
        """The review profiles (``spec``, ``baseline``, ``full``) that hold this rule."""
        return tuple(p for p in PROFILES if in_profile(self.basis, p))

    def snippets_of(self, kind: SnippetKind) -> tuple[Snippet, ...]:
        return tuple(s for s in self.snippets if s.kind == kind)

    @property
    def blocks(self) -> tuple[Snippet, ...]:
        """Every fenced block of the rule, WRONG, CORRECT and examples, in file order."""
        return tuple(sorted((*self.snippets, *self.examples), key=lambda s: s.location.line))

    @property
    def clause_summary(self) -> str:
        """Which clauses an automated check establishes and which it leaves to a reviewer, as one line for a
        worksheet cell or an audit note: ``checked: a; b · not checked (review by hand): c``."""
        if self.check != "automated":
            return "manual: a reviewer judges every clause"
        checked = [str(c.get("says", "")) for c in self.clauses if c.get("seen_by")]
        unchecked = [str(c.get("says", "")) for c in self.clauses if not c.get("seen_by")]
        parts = [f"checked: {'; '.join(checked)}"] if checked else []
        parts += [f"not checked (review by hand): {'; '.join(unchecked)}"] if unchecked else []
        return " · ".join(parts)

    def clause_of(self, reason: str) -> dict | None:
        """The clause a probe reason observes, if any."""
        return next((c for c in self.clauses if reason in (c.get("seen_by") or ())), None)


@dataclass(frozen=True, slots=True)
class Gate:
    """A checklist section that rules belong to."""

    key: str
    title: str
    order: int
    summary: str = ""


@dataclass(frozen=True, slots=True)
class Corpus:
    """Everything parsed from ``content/``, once."""

    root: Path
    """The project root that paths are relative to."""
    version: str
    """The doctrine version (``content/handbook.yml``)."""
    rules: tuple[Rule, ...]
    """Rules sorted by gate order then id."""
    gates: tuple[Gate, ...]
    """Gates in checklist order."""
    diagnostics: tuple[Diagnostic, ...] = ()
    """Every problem found while parsing and linting."""
    retired: tuple[dict, ...] = field(default=())
    """Retired rule ids with the version that retired them and their replacement."""
    site: str = ""
    """Where the handbook is published (``site:`` in ``content/handbook.yml``): the root above its versions."""

    def page_url(self, rule: Rule) -> str:
        """The published page of ``rule`` in this doctrine version's own site (each version keeps its pages); "" when
        the handbook names no site."""
        if not self.site:
            return ""
        page = rule.path.removeprefix("content/").removesuffix(".md")
        return f"{self.site}{self.version}/{page}/"

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def gate(self, key: str) -> Gate | None:
        return next((g for g in self.gates if g.key == key), None)

    @property
    def snippets(self) -> tuple[Snippet, ...]:
        return tuple(s for r in self.rules for s in r.snippets)

    def unparsed_paths(self) -> set[str]:
        """Rule files that are there but yielded no rule (bad YAML, no id, ...): their diagnostics say
        why, and what they hold (an id, snippets) is unknown, not gone."""
        parsed = {r.path for r in self.rules}
        return {d.location.path for d in self.diagnostics if "/rules/" in d.location.path and d.location.path not in parsed}
