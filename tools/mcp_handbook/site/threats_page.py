"""The generated page "Threats: OWASP MCP Top 10": each category with the rules that address it, then a CWE index.

Everything comes from the model: the categories from ``threats.CATEGORIES`` (with the list version they
are pinned to) and the rules from each rule's ``threats:``. A category no rule names is said so on the
page, as information. Links to rules are markdown, so the strict build checks them; a CWE's MITRE page is
shown as text, because the site loads and links nothing off the machine.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from html import escape

from ..model import Corpus, Rule
from ..threats import CATEGORIES, OWASP_MCP_TOP10, ThreatCategory, cwe_address, cwe_anchor, rules_by_category, rules_by_cwe, unaddressed
from .labels import BASIS_MEANING, basis_text
from .links import THREATS_SRC, rule_src
from .rule_page import check_badge, scope_badge

THREATS_TITLE = "Threats: OWASP MCP Top 10"
CWE_INDEX_ANCHOR = "cwe-index"


def _text(text: str) -> str:
    """Plain text for a markdown page: HTML escaped (quotes may stay), no line breaks, no table-breaking pipes."""
    return escape(text, quote=False).replace("|", "\\|").replace("\n", " ")


def _rule_link(rule: Rule, text: str) -> str:
    return f"[{text}]({posixpath.relpath(rule_src(rule), posixpath.dirname(THREATS_SRC) or '.')})"


def _basis_badge(rule: Rule) -> str:
    return (
        f'<span class="hb-badge hb-basis-{escape(rule.basis)}" title="{escape(BASIS_MEANING.get(rule.basis, ""))}">'
        f"{escape(basis_text(rule))}</span>"
    )


def rules_table(rules: Sequence[Rule]) -> str:
    """One row per rule: id and title linked to its page, its scope and basis badges, automated or manual."""
    lines = ["| Id | Rule | Scope | Basis | Check |", "|---|---|---|---|---|"]
    for r in rules:
        lines.append(
            f"| {_rule_link(r, f'`{r.id}`')} | {_rule_link(r, _text(r.title))} | {scope_badge(r)} | "
            f"{_basis_badge(r)} | {check_badge(r.check)} |"
        )
    return "\n".join(lines)


def _overview(corpus: Corpus) -> list[str]:
    by_category = rules_by_category(corpus.rules)
    lines = ["| Category | Rules |", "|---|---|"]
    lines += [f"| [{c.id} · {_text(c.name)}](#{c.anchor}) | {len(by_category[c.id])} |" for c in CATEGORIES]
    missing = unaddressed(corpus.rules)
    if missing:
        names = ", ".join(f"[{c.id}](#{c.anchor}) {_text(c.name)}" for c in missing)
        lines += [
            "", f'!!! info "{len(missing)} of {len(CATEGORIES)} categories {"has" if len(missing) == 1 else "have"} no rule yet"',
            f"    No rule of doctrine {_text(corpus.version)} names {names}. That is information, not an error: "
            "a category may be mostly the host's, the registry's or the operator's to address.",
        ]
    return lines


def _category_section(c: ThreatCategory, corpus: Corpus, rules: Sequence[Rule]) -> list[str]:
    count = f"{len(rules)} rule{'s' if len(rules) != 1 else ''}"
    lines = ["", f"## {c.id} · {_text(c.name)} {{#{c.anchor}}}", "", _text(c.description), ""]
    if rules:
        lines += [f"**Rules that address it** ({count}):", "", rules_table(rules)]
    else:
        lines += [f"**Rules that address it**: none in doctrine {_text(corpus.version)}."]
    lines += ["", f"**What a server author cannot address:** {_text(c.beyond_server)}"]
    return lines


def _cwe_index(corpus: Corpus) -> list[str]:
    found = rules_by_cwe(corpus.rules)
    lines = [
        "", f"## CWE index {{#{CWE_INDEX_ANCHOR}}}", "",
        "Each CWE id a rule names, with those rules. MITRE describes each weakness at the address shown "
        "(copy it into a browser; this site loads nothing from elsewhere).", "",
    ]
    if not found:
        return [*lines, "No rule names a CWE id yet."]
    lines += ["| CWE | Rules | MITRE page |", "|---|---|---|"]
    for cwe, rules in found.items():
        links = ", ".join(_rule_link(r, r.id) for r in rules)
        lines.append(f'| <span id="{cwe_anchor(cwe)}"></span>{cwe} | {links} | <code>{cwe_address(cwe)}</code> |')
    return lines


def threats_page(corpus: Corpus) -> str:
    """The page's markdown: what the mapping is, each category with its rules, the CWE index."""
    by_category = rules_by_category(corpus.rules)
    mapped = sum(1 for r in corpus.rules if any(t in by_category for t in r.threats))
    lines = [
        "---", f'title: "{THREATS_TITLE}"', "---", "", f"# {THREATS_TITLE}", "",
        "Every rule names what it guards against in its *threats*: CWE ids, and the categories of the "
        f"**{_text(OWASP_MCP_TOP10)}**. That list is in beta and its order may change, so this mapping is read "
        f"against the version and date named here. {mapped} of {len(corpus.rules)} rules name a category.", "",
        "Each category below says what goes wrong, which rules address it, and what a server author cannot "
        "address: the part that belongs to the host or client, the registry, the user or the operator. "
        f"The [CWE index](#{CWE_INDEX_ANCHOR}) lists each CWE id with its rules.", "",
        *_overview(corpus),
    ]
    for c in CATEGORIES:
        lines += _category_section(c, corpus, by_category[c.id])
    lines += _cwe_index(corpus)
    return "\n".join(lines) + "\n"
