"""Corpus-level checks: what no single file can tell about itself.

Each check is a plain function ``(Corpus, Vocabulary | None) -> Iterable[Diagnostic]``; ``CHECKS``
is the table ``mcp-handbook check`` runs. The vocabulary (probe names with their FAIL reasons, seam
names) comes in as data: without it, the checks that need it are skipped, so loading the doctrine
for the site or an export imports no verification code.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from .proving.evidence import provable
from .fields import FIELDS_BY_NAME
from .model import Corpus, Diagnostic, Location, Rule, Snippet
from .naming import naming_scheme, probe_placeholders
from .parse import block_ref, shared_source
from .seams import TOOL_SEAM
from .threats import CATEGORIES, OWASP_MCP_TOP10, category, ids_hint, is_category_id


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The names the doctrine may use to prove a rule."""

    probes: Mapping[str, frozenset[str]]
    """Every probe, with the reasons it may FAIL with (its own vocabulary)."""
    seams: frozenset[str]
    """Every seam a block may be mounted at."""
    promises: frozenset[str] = frozenset()
    """Every check a block may name in ``promise=``."""
    preludes: frozenset[str] = frozenset()
    """Every prelude a block may name in ``needs=``."""
    languages: frozenset[str] = frozenset()
    """Every fence language the tests can run or check with a real tool; a block in another one needs ``norun=``."""
    modules: Mapping[str, str] = field(default_factory=dict)
    """Every probe's module relative to ``probes/`` (``security/ssrf.py``), for the naming scheme (HB039, which a
    vocabulary without them skips)."""

REQUIRED_SECTIONS = ("Why it matters", "How it is verified", "References")
DEVIATE_SECTION = "When to deviate"
"""An opinion says when a team may reasonably do otherwise (ESLint's "When not to use it")."""


def _diag(path: str, line: int, code: str, message: str, hint: str = "") -> Diagnostic:
    return Diagnostic(Location(path, line), code, message, hint)


def duplicate_ids(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    first: dict[str, Rule] = {}
    for rule in sorted(corpus.rules, key=lambda r: r.path):
        if rule.id in first:
            yield _diag(rule.path, rule.line_of("id"), "HB020", f"id {rule.id} is already used by {first[rule.id].path}",
                        "pick the next free id in this area")
        else:
            first[rule.id] = rule


def retired_ids(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    retired = {str(r.get("id")): r for r in corpus.retired}
    for rule in corpus.rules:
        if rule.id in retired:
            info = retired[rule.id]
            yield _diag(
                rule.path, rule.line_of("id"), "HB021",
                f"id {rule.id} was retired in {info.get('retired_in', '?')} and may never be reused",
                f"pick a new id; the retired rule was replaced by {info.get('replaced_by') or 'nothing'}",
            )


def _handbook_path(corpus: Corpus) -> str:
    rules = next((r.path for r in corpus.rules), "content/rules/")
    return rules.split("/rules/", 1)[0] + "/handbook.yml"


def retired_registry(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    """An id is retired once, and what replaced it must be a rule (or itself retired)."""
    path, seen = _handbook_path(corpus), set()
    known = {r.id for r in corpus.rules} | {str(e.get("id")) for e in corpus.retired}
    for entry in corpus.retired:
        rule_id, line = str(entry.get("id")), int(entry.get("line", 1))
        if rule_id in seen:
            yield _diag(path, line, "HB023", f"{rule_id} is retired twice", "keep one entry per retired id")
        seen.add(rule_id)
        replaced = entry.get("replaced_by")
        for other in replaced if isinstance(replaced, list) else [replaced] if isinstance(replaced, str) else []:
            if other not in known:
                yield _diag(path, line, "HB025", f"{rule_id} is replaced by {other}, which is no rule",
                            "name the rule that took its place, or write `replaced_by: null` with `reason:`")


def known_gates(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    keys = {g.key for g in corpus.gates}
    for rule in corpus.rules:
        if rule.gate and rule.gate not in keys:
            yield _diag(rule.path, rule.line_of("gate"), "HB022", f"gate {rule.gate!r} is not declared in content/handbook.yml",
                        f"use one of: {', '.join(sorted(keys))}")


@functools.lru_cache(maxsize=4096)
def _top_level_names(code: str) -> tuple[str, int] | frozenset[str]:
    """The names a block defines or assigns at top level, or its syntax error (message, line in the block).
    Kept by code: the corpus is linted on every load, and the tests load copies of it hundreds of times."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return (exc.msg, exc.lineno or 1)
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    names |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    return frozenset(names)


def _static_snippet_problems(snippet: Snippet) -> Iterable[Diagnostic]:
    path = snippet.location.path
    names = _top_level_names(snippet.code)
    if isinstance(names, tuple):
        message, lineno = names
        yield _diag(path, snippet.code_line + lineno - 1, "HB033", f"{snippet.name} does not compile: {message}",
                    "fix the Python syntax in this block")
        return
    if snippet.seam is None:
        return
    needed = {"TOOL", "handle"} if snippet.seam == TOOL_SEAM else {snippet.seam}
    missing = sorted(needed - names)
    if missing:
        yield _diag(
            path, snippet.location.line, "HB034",
            f"{snippet.name} is mounted at seam {snippet.seam!r} but defines no top-level {', '.join(missing)}",
            "define the seam function with the signature in tools/reference_server/README.md",
        )


def _expected_reasons(rule: Rule, snippet: Snippet, known: Vocabulary | None) -> Iterable[Diagnostic]:
    """HB036: ``expect=`` names reasons of the rule's own probe, on WRONG blocks only."""
    if not snippet.expect:
        return
    where = (snippet.location.path, snippet.location.line)
    if snippet.kind != "wrong":
        yield _diag(*where, "HB036", f"{snippet.name}: expect= belongs on WRONG blocks (a CORRECT block must PASS)", "remove expect=")
        return
    reasons = known.probes.get(rule.probe) if known is not None else None
    for reason in snippet.expect:
        if reasons is not None and reason not in reasons:
            yield _diag(*where, "HB036", f"{snippet.name}: probe {rule.probe!r} has no reason {reason!r}",
                        f"its reasons: {', '.join(sorted(reasons)) or 'none'}")


def snippets_and_probes(corpus: Corpus, known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    for rule in corpus.rules:
        runnable = [s for s in rule.snippets if s.language == "python"]
        for snippet in runnable:
            yield from _static_snippet_problems(snippet)
            yield from _expected_reasons(rule, snippet, known)
        if rule.check != "automated":
            continue
        probes = sorted(known.probes) if known is not None else []
        if not rule.probe:
            yield _diag(rule.path, rule.line_of("check"), "HB030", "an automated rule needs a probe",
                        f"add `probe:` with one of: {', '.join(probes) or 'the probes in tools/mcp_handbook/probes/'}")
        elif known is not None and rule.probe not in known.probes:
            yield _diag(rule.path, rule.line_of("probe"), "HB031", f"unknown probe {rule.probe!r}", f"known probes: {', '.join(probes)}")
        for kind in ("wrong", "correct"):
            if not any(s.kind == kind and s.seam for s in runnable):
                yield _diag(
                    rule.path, rule.body_line, "HB030",
                    f"an automated rule needs at least one {kind.upper()} python block mounted at a seam",
                    f"add a ```python {kind} seam=NAME block (or `seam:` in the front matter)",
                )
        for snippet in runnable:
            if known is not None and snippet.seam and snippet.seam not in known.seams:
                yield _diag(snippet.location.path, snippet.location.line, "HB032", f"unknown seam {snippet.seam!r}",
                            f"known seams: {', '.join(sorted(known.seams))}")


def body_sections(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    for rule in corpus.rules:
        missing = [s for s in REQUIRED_SECTIONS if s not in rule.sections]
        if missing:
            yield _diag(rule.path, rule.body_line, "HB040", f"missing body section(s): {', '.join(missing)}",
                        "add a `## " + missing[0] + "` heading with its text")
        if rule.scope == "opinionated" and DEVIATE_SECTION not in rule.sections:
            yield _diag(rule.path, rule.body_line, "HB043", f"an opinionated rule has no `## {DEVIATE_SECTION}` section",
                        "say in a few lines why the rule is not universal and when a team may reasonably do otherwise")


def related_ids(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    ids = {r.id for r in corpus.rules}
    for rule in corpus.rules:
        for other in rule.related:
            if other not in ids:
                yield _diag(rule.path, rule.line_of("related"), "HB041", f"related rule {other} does not exist",
                            "fix the id or remove it from `related:`")


def threat_categories(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    """HB012: an ``MCPnn`` id in ``threats:`` must be a category of the pinned OWASP MCP Top 10 table."""
    first, last = CATEGORIES[0].id, CATEGORIES[-1].id
    for rule in corpus.rules:
        for threat in rule.threats:
            if is_category_id(threat) and category(threat) is None:
                yield _diag(
                    rule.path, rule.line_of("threats"), "HB012",
                    f"field 'threats' {threat!r} is neither a CWE id (CWE-22) nor an OWASP MCP Top 10 id ({first} to {last}): "
                    f"{OWASP_MCP_TOP10} has no {threat}",
                    f"use one of {ids_hint()}",
                )


def clauses_and_reasons(corpus: Corpus, known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    """HB060..HB064: an automated rule's claim is a list of clauses; each is seen by reasons of its probe and broken
    alone by a WRONG block, or says why no probe can see it; every reason the probe has belongs to a clause."""
    for rule in corpus.rules:
        where = (rule.path, rule.line_of("clauses"))
        seen = [c for c in rule.clauses if c.get("seen_by")]
        if rule.check != "automated":
            if seen:
                yield _diag(*where, "HB060", "a manual rule has no probe, so no clause can be seen_by a reason",
                            "write those clauses as {says: ..., unchecked: why}, or drop `clauses:`")
            continue
        if rule.clauses and FIELDS_BY_NAME["clauses"].check(list(rule.clauses), {}):
            continue  # the field itself is malformed: HB012 says so, once
        if not rule.clauses:
            yield _diag(rule.path, rule.line_of("check"), "HB060", "an automated rule needs `clauses:`: its claim, clause by clause",
                        "add `clauses:` with {says: CLAUSE, seen_by: [REASON]} for what the probe sees and "
                        "{says: CLAUSE, unchecked: WHY} for the rest")
            continue
        reasons = known.probes.get(rule.probe) if known is not None else None
        if reasons is not None:
            for clause in seen:
                for reason in clause["seen_by"]:
                    if reason not in reasons:
                        yield _diag(*where, "HB061", f"clause {clause['says']!r}: probe {rule.probe!r} has no reason {reason!r}",
                                    f"its reasons: {', '.join(sorted(reasons))}")
            unclaimed = sorted(set(reasons) - {r for c in seen for r in c["seen_by"]})
            if unclaimed:
                yield _diag(*where, "HB062", f"probe {rule.probe!r} can fail with {', '.join(unclaimed)}, which no clause is seen_by",
                            "add each reason to the clause it observes, so the page says everything the proof checks")
        wrongs = [s for s in rule.snippets_of("wrong") if s.language == "python" and s.seam]
        for clause in seen:
            if not any(s.expect and set(s.expect) <= set(clause["seen_by"]) for s in wrongs):
                yield _diag(*where, "HB063", f"no WRONG block breaks clause {clause['says']!r} alone",
                            f"add a WRONG block with expect={clause['seen_by'][0]} that breaks this clause and keeps the others")
        for s in wrongs:
            if not s.expect:
                yield _diag(s.location.path, s.location.line, "HB064", f"{s.name} names no expect= reason, so no clause says what it breaks",
                            "add expect=REASON, the probe reason of the clause this block breaks")
            elif not any(set(s.expect) <= set(c["seen_by"]) for c in seen):
                yield _diag(s.location.path, s.location.line, "HB064", f"{s.name} expects {', '.join(s.expect)}, which no single clause is seen_by",
                            "a WRONG block breaks one clause: expect only reasons of that clause")


def fix_lines(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    """HB065: an automated rule says in ``fix:`` what an author changes when its probe fails; an audit prints that
    line beside each finding, so a rule without one leaves the author with a verdict and no next step."""
    for rule in corpus.rules:
        if rule.check == "automated" and not rule.fix:
            yield _diag(rule.path, rule.line_of("check"), "HB065", "an automated rule has no `fix:`, the line an audit gives an author who fails it",
                        'add `fix: "Cap each frame at the reader: refuse lines over 1 MiB before parsing."` '
                        "(one imperative sentence, at most 120 characters)")


def blocks_run(corpus: Corpus, known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    """HB037/HB038: every block is run or checked by a real tool, or says why it cannot be (``norun=``); the checks and
    preludes it names exist."""
    for rule in corpus.rules:
        for block in rule.blocks:
            where = (block.location.path, block.location.line)
            proved = provable(rule, block)
            if proved and (block.promise or block.norun):
                yield _diag(*where, "HB037", f"{block.name} is proved by probe {rule.probe!r}: promise= and norun= do not apply",
                            "remove promise= / norun=; the probe is its check")
                continue
            if known is not None:
                if block.promise and block.promise not in known.promises:
                    yield _diag(*where, "HB037", f"{block.name}: no promise check {block.promise!r}",
                                f"known: {', '.join(sorted(known.promises)) or 'none'} (tools/mcp_handbook/promises/)")
                for name in block.needs:
                    if name not in known.preludes:
                        yield _diag(*where, "HB037", f"{block.name}: no prelude {name!r}", f"known: {', '.join(sorted(known.preludes)) or 'none'}")
                if not proved and not block.norun and block.language not in known.languages:
                    yield _diag(*where, "HB038", f"{block.name} is a {block.language or 'plain'} block that nothing runs or checks",
                                f"use a language the tests check ({', '.join(sorted(known.languages))}), or say why it cannot run: norun=\"...\"")
            if block.norun and len(block.norun.split()) < 3:
                yield _diag(*where, "HB038", f"{block.name}: norun= must say why the block cannot run, in a few words",
                            'e.g. norun="a sketch of a deployment file: its values are placeholders"')


def probe_names(corpus: Corpus, known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    """HB039: a rule, its probe and the probe's module share one name, or ``naming.NAMED_APART`` says why not;
    HB016: the probe module holds no placeholder ``new-rule`` wrote."""
    if known is not None and known.modules:
        yield from naming_scheme(corpus, known.modules)
        yield from probe_placeholders(corpus, known.modules)


def shared_blocks(corpus: Corpus, _known: Vocabulary | None = None) -> Iterable[Diagnostic]:
    """HB044: a ``same-as=`` block names a WRONG or CORRECT block of the same language that holds its own code."""
    blocks = {block_ref(s): s for s in corpus.snippets}
    for snippet in corpus.snippets:
        if snippet.same_as and isinstance(problem := shared_source(blocks, snippet), str):
            yield _diag(snippet.location.path, snippet.location.line, "HB044", f"{snippet.name}: {problem}",
                        "name an existing block, e.g. same-as=SEC-021:correct1")


CHECKS: tuple[Callable[[Corpus, Vocabulary | None], Iterable[Diagnostic]], ...] = (
    duplicate_ids, retired_ids, retired_registry, known_gates, snippets_and_probes, body_sections, related_ids, threat_categories,
    clauses_and_reasons, blocks_run, fix_lines, probe_names, shared_blocks,
)


def lint(corpus: Corpus, known: Vocabulary | None = None) -> tuple[Diagnostic, ...]:
    """Run every corpus-level check; return all diagnostics sorted by place."""
    found = [d for check in CHECKS for d in check(corpus, known)]
    everything = [*corpus.diagnostics, *found]
    return tuple(sorted(everything, key=lambda d: (d.location.path, d.location.line, d.code)))
