"""Small summaries for the hand-written pages: the gates and scopes with their counts, the badge legend."""

from __future__ import annotations

import posixpath

from ..fields import PROFILE_MEANING, PROFILES, in_profile
from ..model import Corpus
from .labels import (
    BASIS_LABEL, BASIS_MEANING, CHECK_LABEL, CHECK_MEANING, PROFILE_LABEL, SCOPE_LABEL, SEVERITY_LABEL, SEVERITY_MEANING,
    scope_sentence,
)
from .links import gate_src
from .rule_page import check_badge


def _rel(target: str, from_src: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(from_src) or ".")


def gate_list(corpus: Corpus, *, from_src: str) -> str:
    """A markdown list of the gates in checklist order, each linked, with its rule count and purpose."""
    lines = []
    for g in corpus.gates:
        count = sum(1 for r in corpus.rules if r.gate == g.key)
        summary = f": {g.summary}" if g.summary else ""
        lines.append(f"{g.order}. [{g.title}]({_rel(gate_src(g.key), from_src)}) ({count}){summary}")
    return "\n".join(lines)


def scope_list(corpus: Corpus, *, from_src: str) -> str:
    """A markdown list explaining each scope tag, with its count and a link to its tag page."""
    lines = []
    for scope, label in SCOPE_LABEL.items():
        count = sum(1 for r in corpus.rules if r.scope == scope)
        lines.append(f"- **[{label}]({_rel(f'tags/{scope}.md', from_src)})** ({count}): {scope_sentence(scope)}")
    return "\n".join(lines)


def basis_list(corpus: Corpus, *, from_src: str) -> str:
    """A markdown list explaining each basis (a rule's authority), with its count."""
    lines = []
    for basis, label in BASIS_LABEL.items():
        count = sum(1 for r in corpus.rules if r.basis == basis)
        lines.append(f"- **{label}** ({count}): {BASIS_MEANING[basis]}.")
    return "\n".join(lines)


def profile_list(corpus: Corpus, *, from_src: str) -> str:
    """A markdown list of the review profiles, each with its rule count."""
    lines = []
    for profile in PROFILES:
        count = sum(1 for r in corpus.rules if in_profile(r.basis, profile))
        lines.append(f"- **{PROFILE_LABEL[profile]}** ({count} rules): {PROFILE_MEANING[profile]}.")
    return "\n".join(lines)


def badge_legend(corpus: Corpus, *, from_src: str) -> str:
    """The badges of a rule page as they look there, each with what it means (the legend page)."""
    lines = ["**Scope**: how far the rule reaches; a rounded badge.", ""]
    for scope, label in SCOPE_LABEL.items():
        count = sum(1 for r in corpus.rules if r.scope == scope)
        badge = f'<span class="hb-badge hb-scope-{scope}">{label}</span>'
        lines.append(f"- {badge} ({count}, [list]({_rel(f'tags/{scope}.md', from_src)})): {scope_sentence(scope)}")
    lines += ["", "**Check**: how the rule is checked; a square badge with a mark.", ""]
    for check in CHECK_LABEL:
        count = sum(1 for r in corpus.rules if r.check == check)
        lines.append(f"- {check_badge(check)} ({count}): {CHECK_MEANING[check]}.")
    lines += ["", "**Basis**: the rule's authority, what the specification requires or what this handbook advises.", ""]
    for basis, label in BASIS_LABEL.items():
        lines.append(f'- <span class="hb-badge hb-basis-{basis}">{label}</span>: {BASIS_MEANING[basis]}.')
    lines += ["", "**Severity**: what a break costs.", ""]
    for severity, label in SEVERITY_LABEL.items():
        lines.append(f'- <span class="hb-badge hb-sev-{severity}">{label}</span>: {SEVERITY_MEANING[severity]}.')
    return "\n".join(lines)
