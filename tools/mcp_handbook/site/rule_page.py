"""A rule's page: the heading with its id, the claim, the facts panel, the body with labelled blocks and proofs,
related rules and the history.

Rule files hold no H1 and no markup beyond ordinary fences; everything a
reader sees around them is produced here from the model, so changing how a
rule looks never means editing sixty files.
"""

from __future__ import annotations

import posixpath
import re
from difflib import SequenceMatcher
from html import escape
from typing import Any

from ..model import Corpus, Rule, Snippet
from ..threats import OWASP_MCP_TOP10, category, cwe_anchor, cwe_number
from .changes import Change
from .claims import attack_line, quotes_block, run_note
from .labels import (
    BASIS_MEANING, CHECK_LABEL, CHECK_MARK, CHECK_MEANING, KIND_LABEL, ORDER_META, SCOPE_MEANING, basis_text, page_tags, profile_text,
    qualifier_text, scope_text, severity_text,
)
from .links import THREATS_SRC, gate_src, href, rule_src, spec_url
from .mentions import linked_text
from ..proving.evidence import provable
from .proofs import NOT_SEARCHED, proof_panel, verification_summary
from .state import SiteData

FENCE = re.compile(r"\s*(`{3,}|~{3,})")
LEGEND_SRC = "legend.md"
"""The page that says what the badges and marks of a rule page mean."""
MOST_LINES_MARKED = 0.6
"""Above this share of a block's lines, two blocks are different programs, not a fix of one another: mark none."""


def _fact(name: str, value_html: str, *, css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return f"<div{cls}><dt>{name}</dt><dd>{value_html}</dd></div>"


def scope_badge(rule: Rule) -> str:
    """The scope as a rounded badge (italic for opinion), its meaning on hover."""
    meaning = escape(SCOPE_MEANING.get(rule.scope, ""))
    return f'<span class="hb-badge hb-scope-{escape(rule.scope)}" title="{meaning}">{escape(scope_text(rule))}</span>'


def check_badge(check: str) -> str:
    """The check kind as a square badge with a mark (⚙ automated, ✎ manual): never mistaken for the scope."""
    mark = CHECK_MARK.get(check, "")
    return (
        f'<span class="hb-checkkind hb-checkkind-{escape(check)}" title="{escape(CHECK_MEANING.get(check, ""))}">'
        f'<span aria-hidden="true">{mark}</span> {escape(CHECK_LABEL.get(check, check))}</span>'
    )


def _spec_fact(rule: Rule) -> str:
    if not rule.spec:
        return "none cited (not a protocol claim)"
    url = spec_url(rule.spec)
    text = escape(rule.spec)
    return f'<a class="hb-spec-link" href="{escape(url)}">{text}</a>' if url else text


def meta_block(data: SiteData, rule: Rule) -> str:
    """The facts a reviewer looks for first, in one panel (kept out of the search index: it is page furniture)."""
    corpus = data.corpus
    gate = corpus.gate(rule.gate)
    src = rule_src(rule)
    gate_href = href(gate_src(rule.gate), from_src=src, directory_urls=data.directory_urls)
    gate_link = f'<a href="{gate_href}">{escape(gate.title if gate else rule.gate)}</a>'
    probe = f" <code>{escape(rule.probe)}</code>" if rule.check == "automated" and rule.probe else ""
    facts = [
        _fact("Id", f"<code>{escape(rule.id)}</code>"),
        _fact("Scope", scope_badge(rule)),
        _fact("Check", check_badge(rule.check) + probe),
        _fact("Basis", f'<span class="hb-badge hb-basis-{escape(rule.basis)}" title="{escape(BASIS_MEANING.get(rule.basis, ""))}">'
                       f'{escape(basis_text(rule))}</span> <span class="hb-basis-meaning">{escape(BASIS_MEANING.get(rule.basis, ""))}</span>'),
        _fact("Severity", f'<span class="hb-badge hb-sev-{escape(rule.severity)}">{escape(severity_text(rule))}</span>'),
        _fact("Gate", gate_link),
    ]
    if rule.qualifiers:
        facts.append(_fact("Qualifiers", escape(qualifier_text(rule))))
    if rule.threats:
        facts.append(_fact("Threats", threats_fact(rule, directory_urls=data.directory_urls)))
    facts.append(_fact("Profiles", escape(profile_text(rule))))
    facts.append(_fact("Specification", _spec_fact(rule)))
    facts.append(_fact("Since", escape(rule.since or "?")))
    changes = data.changes(rule)
    if changes:
        facts.append(_fact("Last changed", f"{escape(changes[0].date)} (<code>{escape(changes[0].commit)}</code>)"))
    legend = href(LEGEND_SRC, from_src=src, directory_urls=data.directory_urls)
    # a term and its description like every other fact: a <dl> holds only groups of <dt> and <dd>
    facts.append(_fact("Badges", f'<a href="{legend}">What the badges mean</a>', css="hb-meta-legend"))
    return f'<dl class="hb-meta" {NOT_SEARCHED}>\n' + "\n".join(facts) + "\n</dl>\n"


def threats_fact(rule: Rule, *, directory_urls: bool = True) -> str:
    """Each threat id linked to its place on the threats page: a category to its section (named), a CWE to the index."""
    page = href(THREATS_SRC, from_src=rule_src(rule), directory_urls=directory_urls)
    links = []
    for threat in rule.threats:
        found = category(threat)
        anchor = found.anchor if found else cwe_anchor(threat) if cwe_number(threat) is not None else ""
        text = f"{threat} {found.name}" if found else threat
        links.append(f'<a class="hb-threat" href="{page}#{anchor}">{escape(text)}</a>' if anchor else escape(text))
    pinned = f' <span class="hb-threat-list">(MCP ids: {escape(OWASP_MCP_TOP10)})</span>' if any(category(t) for t in rule.threats) else ""
    return ", ".join(links) + pinned


def claim_paragraph(rule: Rule) -> str:
    """The rule's one-sentence claim (its ``summary``), set directly under the heading."""
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(rule.summary, quote=False))
    return f'<p class="hb-claim">{text}</p>\n' if rule.summary else ""


def _comparable(code: str) -> list[str]:
    return [" ".join(line.split()) for line in code.splitlines()]


def _counterpart(rule: Rule, snippet: Snippet) -> Snippet | None:
    """The block of the other kind this one is read against: same language, same seam if any, most alike."""
    others = [s for s in rule.snippets if s.kind != snippet.kind and s.language == snippet.language]
    same_seam = [s for s in others if s.seam == snippet.seam] or others
    mine = _comparable(snippet.code)
    return max(same_seam, key=lambda s: SequenceMatcher(None, mine, _comparable(s.code), autojunk=False).ratio(), default=None)


def differing_lines(rule: Rule, snippet: Snippet) -> tuple[int, ...]:
    """1-based lines of a WRONG or CORRECT block that differ from its counterpart (none when the two share little)."""
    other = _counterpart(rule, snippet)
    return _differing(snippet, other) if other is not None else ()


def _differing(snippet: Snippet, other: Snippet) -> tuple[int, ...]:
    mine, theirs = _comparable(snippet.code), _comparable(other.code)
    matcher = SequenceMatcher(None, mine, theirs, autojunk=False)
    marked = [
        i + 1
        for tag, start, end, _, _ in matcher.get_opcodes() if tag != "equal"
        for i in range(start, end) if mine[i]
    ]
    written = sum(1 for line in mine if line)
    return tuple(marked) if marked and len(marked) <= MOST_LINES_MARKED * written else ()


def _diff_note(rule: Rule, other: Snippet) -> str:
    """Which block the marked lines are read against: by its title when the rule has several of that kind."""
    label = "CORRECT" if other.kind == "correct" else "WRONG"
    if len(rule.snippets_of(other.kind)) > 1 and other.title:
        return f"marked lines differ from {label} “{escape(other.title)}”"
    return f"marked lines differ from the {label} code"


def _open_snippet(rule: Rule, snippet: Snippet, fence_line: str) -> str:
    # a plain HTML box: superfences has already set the fence aside when the HTML block is read,
    # so the code inside is still highlighted without the (slower) md_in_html extension
    label, css = KIND_LABEL[snippet.kind]
    title = f" — {escape(snippet.title)}" if snippet.title else ""
    fence = FENCE.match(fence_line)
    assert fence is not None  # the caller found the fence on this line
    marker = fence.group(1)  # keep ```` or ~~~ as written: the code may hold ```
    other = _counterpart(rule, snippet)
    lines = _differing(snippet, other) if other is not None else ()
    note = f' <span class="hb-diff-note">{_diff_note(rule, other)}</span>' if lines and other is not None else ""
    hl_lines = f' hl_lines="{" ".join(map(str, lines))}"' if lines else ""
    return (
        f'<div class="hb-snippet {css}">\n'
        f'<p class="hb-snippet-label"><strong>{label}</strong>{title}{note}</p>\n\n'
        f"{marker}{snippet.language}{hl_lines}"
    )


def _close_snippet(data: SiteData | None, rule: Rule, snippet: Snippet) -> str:
    panel = data.late(rule_src(rule), proof_panel(data, rule, snippet)) if data is not None else ""
    if not panel and data is not None and not provable(rule, snippet):
        panel = data.late(rule_src(rule), run_note(snippet))
    return f"{panel}\n</div>" if panel else "</div>"


def body_with_blocks(rule: Rule, data: SiteData | None) -> str:
    """The rule body with each WRONG/CORRECT fence wrapped in its labelled box, its proof beneath."""
    lines = rule.body.split("\n")
    for s in sorted(rule.blocks, key=lambda s: s.location.line, reverse=True):
        if s.kind == "example":
            end = (s.location.end_line or s.location.line) - rule.body_line
            if data is not None and 0 <= end < len(lines) and FENCE.match(lines[end]):
                lines.insert(end + 1, "\n" + data.late(rule_src(rule), run_note(s)) + "\n")
            continue
        start = s.location.line - rule.body_line
        end = (s.location.end_line or s.location.line) - rule.body_line
        fence = FENCE.match(lines[start]) if 0 <= start < len(lines) else None
        if fence is None:
            raise ValueError(f"{s.location}: snippet fence not found where the model put it")
        marker = fence.group(1)
        lines[start] = _open_snippet(rule, s, lines[start])
        if s.same_as and end == start + 1:  # an empty fence: the code is the named block's (parse gave it)
            lines[start + 1 : start + 1] = s.code.rstrip("\n").split("\n")
            end += s.code.rstrip("\n").count("\n") + 1
        if end < len(lines) and FENCE.match(lines[end]):
            lines.insert(end + 1, _close_snippet(data, rule, s))
        else:  # an unclosed fence runs to the end of the file
            lines.append(marker)
            lines.append(_close_snippet(data, rule, s))
    return "\n".join(lines)


def related_section(corpus: Corpus, rule: Rule) -> str:
    """The rules this one points to, each linked with its title (markdown links: the strict build checks them)."""
    by_id = {r.id: r for r in corpus.rules}
    found = [by_id[i] for i in rule.related if i in by_id]
    if not found:
        return ""
    src = rule_src(rule)
    lines = ["## Related rules", ""]
    for other in found:
        target = _relative_md(rule_src(other), src)
        lines.append(f"- [{other.id} · {escape(other.title)}]({target})")
    return "\n".join(lines) + "\n"


def _relative_md(target_src: str, from_src: str) -> str:
    return posixpath.relpath(target_src, posixpath.dirname(from_src) or ".")


CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _commit_list(data: SiteData, rule: Rule, changes: tuple[Change, ...]) -> str:
    """The commits as finished HTML: a page-long list of one-line subjects that Markdown and the search index
    would only slow down (a search for a word found in every rule's history helps no reader). A subject's
    `code` reads as code, and another rule's id in it links to that rule, as in the prose."""
    src = rule_src(rule)
    titles = {r.id: (rule_src(r), r.title) for r in data.corpus.rules if r.id != rule.id}

    def link(rule_id: str) -> tuple[str, str] | None:
        if rule_id not in titles:
            return None
        target, title = titles[rule_id]
        return href(target, from_src=src, directory_urls=data.directory_urls), title

    items = "".join(
        f"<li>{escape(c.date)} · <code>{escape(c.commit)}</code> · {_subject_html(c.subject, link)}</li>" for c in changes
    )
    return f'<ul class="hb-commits">{items}</ul>'


def _subject_html(subject: str, link: Any) -> str:
    """A commit subject as HTML: its `code` spans as code, other rules' ids in the rest linked."""
    parts = CODE_SPAN.split(subject)  # text, code, text, code, ..., text
    return "".join(f"<code>{escape(part)}</code>" if i % 2 else linked_text(part, link) for i, part in enumerate(parts))


def history_section(data: SiteData, rule: Rule) -> str:
    """Since when the rule exists and what changed, from its changelog and its file's git history."""
    lines = ["## Change history", "", f"Introduced in doctrine version **{escape(rule.since or '?')}**."]
    changelog = rule.changelog
    if changelog:
        lines += ["", "Changelog:", ""]
        lines += [f"- **{escape(str(c.get('version', '?')))}**: {escape(str(c.get('change', '')))}" for c in changelog]
    changes = data.changes(rule)
    if changes:
        lines += ["", "Commits that touched this rule, newest first:", "", data.late(rule_src(rule), _commit_list(data, rule, changes))]
    return "\n".join(lines) + "\n"


def rule_page(corpus: Corpus, rule: Rule, *, data: SiteData | None = None) -> str:
    """The page markdown for a rule: heading with the id, the claim, facts, verification, body, related rules, history."""
    data = data if data is not None else SiteData(corpus=corpus)
    parts = [
        f"# {rule.id} · {escape(rule.title)}\n",
        claim_paragraph(rule),
        data.late(rule_src(rule), quotes_block(rule) + attack_line(rule)),
        data.late(rule_src(rule), meta_block(data, rule)),  # finished HTML: put in after Markdown and search
        data.late(rule_src(rule), verification_summary(data, rule)),
        body_with_blocks(rule, data),
        "",
        related_section(corpus, rule),
        history_section(data, rule),
    ]
    return "\n".join(parts)


def page_meta(corpus: Corpus, rule: Rule) -> dict[str, Any]:
    """What a rule page sets in its page meta: its tags, its place in the checklist (tag listings sort by it),
    and no right-hand table of contents, so the code gets the width."""
    return {"tags": page_tags(rule), ORDER_META: corpus.rules.index(rule), "hide": ["toc"]}
