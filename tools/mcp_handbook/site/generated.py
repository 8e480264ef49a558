"""Pages made from the model at build time, and the navigation that orders every page.

Gates come from ``content/handbook.yml`` and stack labels from the rules, so
their pages are generated (a new gate gets its page without anyone writing
one). The navigation follows the checklist: gates in declared order, rules in
the corpus's order, then tags; a page nobody placed is still listed, last.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..model import Corpus
from .labels import ORDER_META, SCOPE_LABEL, SEVERITY_LABEL, SEVERITY_MEANING, scope_sentence, scope_tag
from .links import gate_src, rule_src
from .tables import gate_page

FIXED_PAGES = (
    ("Home", "index.md"),
    ("All rules", "overview.md"),
    ("Threats: OWASP MCP Top 10", "threats.md"),
    ("Reading a rule page", "legend.md"),
    ("How proofs work", "proofs.md"),
    ("Review worksheet", "worksheet.md"),
    ("Run an audit", "audit.md"),
    ("Downloads", "downloads.md"),
)
"""Pages at the top of the navigation, in order: hand-written under content/, or generated (``threats.md``);
each is listed only when it exists."""
TAGS_INDEX = "tags/index.md"


def _listing(tags: Iterable[str]) -> str:
    names = ", ".join(json.dumps(t) for t in tags)
    return f"<!-- material/tags {{ include: [{names}] }} -->"


def _scope_tags(corpus: Corpus, scope: str) -> list[str]:
    """The tags a scope's page lists: the scope's own, or for ``stack`` each stack label (a rule has one)."""
    return list(dict.fromkeys(scope_tag(r) for r in corpus.rules if r.scope == scope))


def scope_page(corpus: Corpus, scope: str) -> str:
    count = sum(1 for r in corpus.rules if r.scope == scope)
    label = SCOPE_LABEL[scope]
    body = _listing(_scope_tags(corpus, scope)) if count else "No rule has this scope yet."
    return (
        f"---\ntitle: {json.dumps(label + ' rules')}\n---\n\n# {label} rules\n\n"
        f"{scope_sentence(scope)} {count} rule{'s' if count != 1 else ''}, in checklist order.\n\n{body}\n"
    )


def severity_page(corpus: Corpus) -> str:
    tags = [f"Severity: {s}" for s in SEVERITY_LABEL if any(r.severity == s for r in corpus.rules)]
    body = _listing(tags) if tags else "No rules yet."
    meanings = " ".join(f"**{label}**: {SEVERITY_MEANING[s]}." for s, label in SEVERITY_LABEL.items())
    return (
        "---\ntitle: Rules by severity\n---\n\n# Rules by severity\n\n"
        f"{meanings} Each list is in checklist order.\n\n{body}\n"
    )


def tags_index(corpus: Corpus) -> str:
    lines = ["---", "title: Tags", "---", "", "# Tags", "", "Every rule carries its scope and its severity as tags.", ""]
    for scope, label in SCOPE_LABEL.items():
        count = sum(1 for r in corpus.rules if r.scope == scope)
        sentence = scope_sentence(scope)
        lines.append(f"- [{label}]({scope}.md) ({count}): {sentence[0].lower()}{sentence[1:]}")
    lines.append("- [By severity](severity.md): high, medium, low.")
    return "\n".join(lines) + "\n"


TAG_GROUPS = (tuple(SCOPE_LABEL.values()), tuple(f"Severity: {s}" for s in SEVERITY_LABEL))


def checklist_position(mapping: Any) -> tuple[int, str]:
    """Sort key of a tag listing's entries (``listings_sort_by`` of the tags plugin): checklist order."""
    page = mapping.item
    return int(page.meta.get(ORDER_META, 10**6)), str(page.title)


def tag_position(tag: Any, *_: Any) -> tuple[int, int, str]:
    """Sort key of a listing's tags (``listings_tags_sort_by``): scopes and severities in their own order
    (high before medium before low), stack labels by name."""
    for group, names in enumerate(TAG_GROUPS):
        if tag.name in names:
            return group, names.index(tag.name), tag.name
    return len(TAG_GROUPS), 0, tag.name


def generated_pages(corpus: Corpus) -> dict[str, str]:
    """Docs-relative path -> markdown, for every page made from the model."""
    pages = {gate_src(g.key): gate_page(corpus, g) for g in corpus.gates}
    pages[TAGS_INDEX] = tags_index(corpus)
    pages.update({f"tags/{scope}.md": scope_page(corpus, scope) for scope in SCOPE_LABEL})
    pages["tags/severity.md"] = severity_page(corpus)
    from .threats_page import THREATS_SRC, threats_page

    pages[THREATS_SRC] = threats_page(corpus)
    return pages


def navigation(corpus: Corpus, existing: Iterable[str]) -> list[Any]:
    """The mkdocs ``nav``: fixed pages, gates with their rules, tags, then any page not placed."""
    present = set(existing)
    placed: set[str] = set()

    def entry(title: str, src: str) -> dict[str, str]:
        placed.add(src)
        return {title: src}

    nav: list[Any] = [entry(title, src) for title, src in FIXED_PAGES if src in present]
    gates = []
    for gate in corpus.gates:
        rules = [entry(f"{r.id} · {r.title}", rule_src(r)) for r in corpus.rules if r.gate == gate.key]
        gates.append({gate.title: [entry(gate.title, gate_src(gate.key)), *rules]})
    nav.append({"Rules by gate": gates})
    tag_pages = [src for src in (TAGS_INDEX, *(f"tags/{s}.md" for s in SCOPE_LABEL), "tags/severity.md") if src in present]
    placed.update(tag_pages)
    nav.append({"Tags": tag_pages})
    nav.extend(sorted(present - placed))
    return nav
