"""A rule's page: the heading with its id, the facts panel, the body with labelled blocks and proofs, the history.

Rule files hold no H1 and no markup beyond ordinary fences; everything a
reader sees around them is produced here from the model, so changing how a
rule looks never means editing sixty files.
"""

from __future__ import annotations

import re
from html import escape

from ..model import Corpus, Rule, Snippet
from .changes import Change
from .labels import BASIS_MEANING, KIND_LABEL, basis_text, check_text, profile_text, qualifier_text, scope_text, severity_text, threat_text
from .links import gate_src, href, rule_src
from .proofs import proof_panel, verification_summary
from .state import SiteData


FENCE = re.compile(r"\s*(`{3,}|~{3,})")


def _fact(name: str, value_html: str, *, css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return f"<div{cls}><dt>{name}</dt><dd>{value_html}</dd></div>"


def meta_block(data: SiteData, rule: Rule) -> str:
    """The facts a reviewer looks for first, in one panel."""
    corpus = data.corpus
    gate = corpus.gate(rule.gate)
    src = rule_src(rule)
    gate_link = f'<a href="{href(gate_src(rule.gate), from_src=src, directory_urls=data.directory_urls)}">{escape(gate.title if gate else rule.gate)}</a>'
    facts = [
        _fact("Id", f"<code>{escape(rule.id)}</code>"),
        _fact("Scope", f'<span class="hb-badge hb-scope-{escape(rule.scope)}">{escape(scope_text(rule))}</span>'),
        _fact("Basis", f'<span class="hb-badge hb-basis-{escape(rule.basis)}" title="{escape(BASIS_MEANING.get(rule.basis, ""))}">'
                       f'{escape(basis_text(rule))}</span> <span class="hb-basis-meaning">{escape(BASIS_MEANING.get(rule.basis, ""))}</span>'),
        _fact("Severity", f'<span class="hb-badge hb-sev-{escape(rule.severity)}">{escape(severity_text(rule))}</span>'),
        _fact("Gate", gate_link),
        _fact("Check", escape(check_text(rule))),
    ]
    if rule.qualifiers:
        facts.append(_fact("Qualifiers", escape(qualifier_text(rule))))
    if rule.threats:
        facts.append(_fact("Threats", escape(", ".join(threat_text(t) for t in rule.threats))))
    facts.append(_fact("Profiles", escape(profile_text(rule))))
    facts.append(_fact("Specification", escape(rule.spec) if rule.spec else "none cited (not a protocol claim)"))
    facts.append(_fact("Since", escape(rule.since or "?")))
    changes = data.changes(rule)
    if changes:
        facts.append(_fact("Last changed", f"{escape(changes[0].date)} (<code>{escape(changes[0].commit)}</code>)"))
    return '<dl class="hb-meta">\n' + "\n".join(facts) + "\n</dl>\n"


def _open_snippet(snippet: Snippet, fence_line: str) -> str:
    # a plain HTML box: superfences has already set the fence aside when the HTML block is read,
    # so the code inside is still highlighted without the (slower) md_in_html extension
    label, css = KIND_LABEL[snippet.kind]
    title = f" — {escape(snippet.title)}" if snippet.title else ""
    marker = FENCE.match(fence_line).group(1)  # keep ```` or ~~~ as written: the code may hold ```
    return (
        f'<div class="hb-snippet {css}">\n'
        f'<p class="hb-snippet-label"><strong>{label}</strong>{title}</p>\n\n'
        f"{marker}{snippet.language}"
    )


def _close_snippet(data: SiteData | None, rule: Rule, snippet: Snippet) -> str:
    panel = proof_panel(data, rule, snippet) if data is not None else ""
    return f"{panel}\n</div>" if panel else "</div>"


def body_with_blocks(rule: Rule, data: SiteData | None) -> str:
    """The rule body with each WRONG/CORRECT fence wrapped in its labelled box, its proof beneath."""
    lines = rule.body.split("\n")
    for s in sorted(rule.snippets, key=lambda s: s.location.line, reverse=True):
        start = s.location.line - rule.body_line
        end = (s.location.end_line or s.location.line) - rule.body_line
        if not (0 <= start < len(lines) and FENCE.match(lines[start])):
            raise ValueError(f"{s.location}: snippet fence not found where the model put it")
        marker = FENCE.match(lines[start]).group(1)
        lines[start] = _open_snippet(s, lines[start])
        if end < len(lines) and FENCE.match(lines[end]):
            lines.insert(end + 1, _close_snippet(data, rule, s))
        else:  # an unclosed fence runs to the end of the file
            lines.append(marker)
            lines.append(_close_snippet(data, rule, s))
    return "\n".join(lines)


def _history_line(change: Change) -> str:
    return f"- {escape(change.date)} · `{change.commit}` · {escape(change.subject)}"


def history_section(data: SiteData, rule: Rule) -> str:
    """Since when the rule exists and what changed, from its changelog and its file's git history."""
    lines = ["## Change history", "", f"Introduced in doctrine version **{escape(rule.since or '?')}**."]
    changelog = rule.changelog
    if changelog:
        lines += ["", "Changelog:", ""]
        lines += [f"- **{escape(str(c.get('version', '?')))}**: {escape(str(c.get('change', '')))}" for c in changelog]
    changes = data.changes(rule)
    if changes:
        lines += ["", "Commits that touched this rule, newest first:", ""]
        lines += [_history_line(c) for c in changes]
    return "\n".join(lines) + "\n"


def rule_page(corpus: Corpus, rule: Rule, *, data: SiteData | None = None) -> str:
    """The page markdown for a rule: heading with the id, facts, verification, body with labelled blocks, history."""
    data = data if data is not None else SiteData(corpus=corpus)
    parts = [
        f"# {rule.id} · {escape(rule.title)}\n",
        meta_block(data, rule),
        verification_summary(data, rule),
        body_with_blocks(rule, data),
        "",
        history_section(data, rule),
    ]
    return "\n".join(parts)
