"""The text of the skill bundle: ``SKILL.md`` and one ``references/<gate>.md`` per gate.

``SKILL.md`` stays compact because an agent loads it whole when the skill
fires: the high-severity rules inline, and a pointer to each gate's reference
file, which the agent opens only when it works on that area. Reference files
keep each rule's prose and its CORRECT code; WRONG code is left out so an
agent never copies it, with a one-line note where it stood.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import yaml

from ..export.worksheet import Stamp
from ..model import Corpus, Gate, Rule, Snippet
from ..threats import CATEGORIES, OWASP_MCP_TOP10, rules_by_category, threat_label

THREATS_REFERENCE = "references/threats.md"
"""The OWASP MCP Top 10 table with the bundle's rules under each category."""

DESCRIPTION_LIMIT = 1024
"""The Agent Skills limit on ``description``."""
SCOPE_NOTE = (
    "**universal** rules hold for every MCP server; **opinionated** rules are the handbook's recommended default "
    "(deviate only with a stated reason); **stack** rules apply only to the named stack. Each rule's *basis* says "
    "why: `spec-must`/`spec-should` (the cited specification revision says so), `security` (exploitable without it) "
    "or `practice` (this handbook's advice); *applies only when* names the servers a conditional rule is for."
)


def reference_name(gate_key: str) -> str:
    """``references/<gate>.md``, with the key reduced to safe file-name characters."""
    return "references/" + (re.sub(r"[^a-z0-9-]+", "-", gate_key.lower()).strip("-") or "gate") + ".md"


def description(corpus: Corpus, gates: Sequence[Gate], stamp: Stamp) -> str:
    """What the skill is for and when to use it, within the 1024-character limit."""
    scope = "" if stamp.filters_text == "none" else f" Limited to {stamp.filters_text}."
    head = (
        f"Rules for writing and reviewing Model Context Protocol (MCP) servers, from the MCP Server Authoring "
        f"Handbook (doctrine {corpus.version}), each with CORRECT code."
    )
    use = (
        " Use when building, changing, reviewing or debugging an MCP server, its tools or its tests, "
        "or when asked whether an MCP server is safe and usable by agents."
    )
    covers = " Covers: " + "; ".join(g.title for g in gates) + "."
    text = head + covers + scope + use
    return text if len(text) <= DESCRIPTION_LIMIT else (head + scope + use)[:DESCRIPTION_LIMIT]


def _meta_line(rule: Rule) -> str:
    scope = f"stack: {rule.stack}" if rule.scope == "stack" else rule.scope
    check = f"automated (probe `{rule.probe}`)" if rule.check == "automated" and rule.probe else rule.check
    parts = [scope, f"basis {rule.basis}", f"severity {rule.severity}", f"check {check}"]
    parts += [f"spec {rule.spec}"] if rule.spec else []
    parts += [f"threats {', '.join(threat_label(t) for t in rule.threats)}"] if rule.threats else []
    parts += [f"applies only when: {', '.join(rule.conditions)}"] if rule.conditions else []
    parts += [f"empirical: observed {q.get('observed')}" for q in rule.qualifiers if q.get("kind") == "empirical"]
    parts += [f"since {rule.since}"] if rule.since else []
    return "*" + " · ".join(parts) + "*"


def _fence(code: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _snippet_lines(snippet: Snippet) -> list[str]:
    label = f": {snippet.title}" if snippet.title else ""
    if snippet.kind == "wrong":
        return [f"*(WRONG example omitted{label}; see the handbook page for {snippet.rule_id}.)*"]
    fence = _fence(snippet.code)
    return [f"**CORRECT**{label}", "", f"{fence}{snippet.language}", *snippet.code.rstrip("\n").split("\n"), fence]


def rule_body(rule: Rule) -> str:
    """The rule's prose with its sections one level down, WRONG code out and CORRECT code labelled."""
    lines = rule.body.split("\n")
    for snippet in sorted(rule.snippets, key=lambda s: s.location.line, reverse=True):
        start = snippet.location.line - rule.body_line
        end = (snippet.location.end_line or snippet.location.line) - rule.body_line
        if not (0 <= start < len(lines) and lines[start].lstrip().startswith(("```", "~~~"))):
            continue  # the model and the text disagree: keep the text as written
        closed = end < len(lines) and lines[end].strip().startswith(("```", "~~~")) and end > start
        lines[start : end + 1 if closed else len(lines)] = _snippet_lines(snippet)
    sections = set(rule.sections)
    return "\n".join("#" + line if line.startswith("## ") and line[3:].strip() in sections else line for line in lines).strip()


def rule_heading(rule: Rule) -> str:
    return f"## {rule.id} · {rule.title}"


def reference_file(corpus: Corpus, gate: Gate, rules: Sequence[Rule]) -> str:
    head = [f"# {gate.title}", ""]
    head += [gate.summary, ""] if gate.summary else []
    head += [f"Doctrine {corpus.version}: {len(rules)} rule(s). {SCOPE_NOTE}", ""]
    blocks = []
    for rule in rules:
        summary = [f"> {rule.summary}", ""] if rule.summary else []
        page = [f"Published page (doctrine {corpus.version}): {corpus.page_url(rule)}", ""] if corpus.site else []
        blocks.append("\n".join([rule_heading(rule), "", _meta_line(rule), "", *summary, *page, rule_body(rule), ""]))
    return "\n".join(head) + "\n" + "\n".join(blocks)


def threats_reference(corpus: Corpus, rules: Sequence[Rule]) -> str:
    """``references/threats.md``: each OWASP MCP Top 10 category, the bundle's rules that address it, and what
    a server author cannot address there (so an agent does not promise a fix that belongs to the host)."""
    by_category = rules_by_category(rules)
    lines = [
        "# Threats: the OWASP MCP Top 10", "",
        f"Doctrine {corpus.version}. Rules name what they guard against in *threats*: CWE ids and the ids of the "
        f"{OWASP_MCP_TOP10}. The list is in beta and its order may change; the ids here are read against that version.", "",
        "| Id | Category | Rules |", "|---|---|---|",
    ]
    lines += [f"| {c.id} | {c.name} | {', '.join(r.id for r in by_category[c.id]) or 'none'} |" for c in CATEGORIES]
    for c in CATEGORIES:
        lines += ["", f"## {c.id}: {c.name}", "", c.description, ""]
        found = by_category[c.id]
        lines += [f"- **{r.id}** {r.title.rstrip('.')} ({reference_name(r.gate)})" for r in found] or ["No rule of this bundle addresses it."]
        lines += ["", f"What a server author cannot address: {c.beyond_server}"]
    return "\n".join(lines) + "\n"


def skill_md(corpus: Corpus, name: str, rules: Sequence[Rule], gates: Sequence[Gate], stamp: Stamp) -> str:
    front = yaml.safe_dump({"name": name, "description": description(corpus, gates, stamp)}, sort_keys=False, allow_unicode=True, width=10_000)
    high = [r for r in rules if r.severity == "high"]
    lines = [
        "---", front.rstrip("\n"), "---", "",
        "# MCP Server Authoring Handbook", "",
        f"Doctrine {stamp.doctrine_version} (commit {stamp.commit[:12]}, exported {stamp.date}; filters: {stamp.filters_text}). "
        f"{len(rules)} rule(s) in {len(gates)} gate(s).", "",
        "## How to use this skill", "",
        "1. Keep every high-severity rule below whenever you write or change MCP server code.",
        "2. Before working on an area, open its reference file under `references/`: every rule of that gate, "
        "why it matters, how it is verified, and CORRECT code to start from.",
        f"3. {SCOPE_NOTE}",
        "4. When reviewing a server, check each rule of the gates it touches and say which rule (by id) an issue breaks.",
        "",
        f"## High-severity rules ({len(high)})", "",
    ]
    for rule in high:
        summary = f" {rule.summary}" if rule.summary else ""
        page = f"; [page]({corpus.page_url(rule)})" if corpus.site else ""
        lines.append(f"- **{rule.id}** {rule.title.rstrip('.')}.{summary} ({reference_name(rule.gate)}{page})")
    lines += ["", "## Gates", "", "| Gate | Reference | Rules |", "|---|---|---|"]
    for gate in gates:
        count = sum(r.gate == gate.key for r in rules)
        lines.append(f"| {gate.title} | [{reference_name(gate.key)}]({reference_name(gate.key)}) | {count} |")
    lines += [
        "", "## Threats", "",
        f"[{THREATS_REFERENCE}]({THREATS_REFERENCE}) maps these rules to the {OWASP_MCP_TOP10}, and says for each "
        "category what a server author cannot address (the host, the registry, the user or the operator owns that part).",
    ]
    return "\n".join(lines) + "\n"
