"""The text of the skill bundle, laid out for progressive disclosure.

An agent loads ``SKILL.md`` whole when the skill fires, so it holds only how to use the skill, the high-severity
rules one line each, when to run the scripts, and an index that says which file to open for what. Each gate has an
index file (``references/<gate>.md``: one line per rule), and each rule its own file
(``references/rules/<ID>.md``: the claim, why, the CORRECT code, pitfalls, when to deviate, how it is checked and
its versioned page), small enough to load alone. WRONG code is left out so an agent never copies it, with a
one-line note where it stood. Links between rules are rewritten to the bundle's own files, so every link resolves
inside the bundle (:mod:`.validate` holds that).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator, Sequence

import yaml

from ...model import Corpus, Gate, Rule, Snippet
from ...threats import CATEGORIES, OWASP_MCP_TOP10, rules_by_category, threat_label
from ..worksheet import Stamp

THREATS_REFERENCE = "references/threats.md"
"""The OWASP MCP Top 10 table with the bundle's rules under each category."""
RULES_FOLDER = "references/rules"
CHECK_TOOL = "scripts/check_tool.py"
AUDIT_SERVER = "scripts/audit_server.sh"

DESCRIPTION_LIMIT = 1024
"""The Agent Skills limit on ``description``."""
SCOPE_NOTE = (
    "**universal** rules hold for every MCP server; **opinionated** rules are the handbook's recommended default "
    "(deviate only with a stated reason); **stack** rules apply only to the named stack. Each rule's *basis* says "
    "why: `spec-must`/`spec-should` (the cited specification revision says so), `security` (exploitable without it) "
    "or `practice` (this handbook's advice); *applies only when* names the servers a conditional rule is for."
)
KEPT_SECTIONS = ("Why it matters", "What to do", "Pitfalls", "When to deviate")
"""The body sections a rule file keeps. *How it is verified* becomes a short generated section (what checks it and
which script runs that check); *References* stay on the rule's page, which the file links."""


def reference_name(gate_key: str) -> str:
    """``references/<gate>.md``, the gate's index, with the key reduced to safe file-name characters."""
    return "references/" + (re.sub(r"[^a-z0-9-]+", "-", gate_key.lower()).strip("-") or "gate") + ".md"


def rule_file(rule_id: str) -> str:
    """``references/rules/<ID>.md``: a rule's own file, named by its id so an agent that knows the id opens it."""
    return f"{RULES_FOLDER}/{re.sub(r'[^A-Za-z0-9-]+', '-', rule_id)}.md"


def relative(from_file: str, to_file: str) -> str:
    """The link from one bundle file to another."""
    return posixpath.relpath(to_file, posixpath.dirname(from_file) or ".")


def description(corpus: Corpus, gates: Sequence[Gate], stamp: Stamp) -> str:
    """What the skill is for and when to use it, within the 1024-character limit."""
    scope = "" if stamp.filters_text == "none" else f" Limited to {stamp.filters_text}."
    head = (
        f"Rules for writing and reviewing Model Context Protocol (MCP) servers, from the MCP Server Authoring "
        f"Handbook (doctrine {corpus.version}), each with CORRECT code, plus scripts that check a tool definition "
        f"and audit a running server."
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
    parts = [scope, f"basis {rule.basis}", f"severity {rule.severity}", f"check {rule.check}"]
    parts += [f"spec {rule.spec}"] if rule.spec else []
    parts += [f"threats {', '.join(threat_label(t) for t in rule.threats)}"] if rule.threats else []
    parts += [f"applies only when: {', '.join(rule.conditions)}"] if rule.conditions else []
    parts += [f"empirical: observed {q.get('observed')}" for q in rule.qualifiers if q.get("kind") == "empirical"]
    parts += [f"since {rule.since}"] if rule.since else []
    return "*" + " · ".join(parts) + "*"


def _fence(code: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    return "`" * max(3, longest + 1)


def _snippet_lines(snippet: Snippet, page: str) -> list[str]:
    label = f": {snippet.title}" if snippet.title else ""
    if snippet.kind == "wrong":
        where = f"the [rule's page]({page})" if page else "the handbook page"
        return [f"*(WRONG example omitted{label}; see {where}.)*"]
    fence = _fence(snippet.code)
    return [f"**CORRECT**{label}", "", f"{fence}{snippet.language}", *snippet.code.rstrip("\n").split("\n"), fence]


def _code_flags(lines: Sequence[str]) -> Iterator[bool]:
    """For each line, whether it belongs to a fenced code block (its fences included)."""
    fence = ""
    for line in lines:
        stripped = line.lstrip()
        if not fence:
            opening = re.match(r"(`{3,}|~{3,})", stripped)
            if opening:
                fence = opening.group(1)
            yield bool(opening)
        else:
            closing = re.fullmatch(re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*", stripped)
            if closing:
                fence = ""
            yield True


LinkFix = Callable[[str], str | None]
"""Given a link target written in a rule, the bundle target to write instead ("" drops the link, keeping its
text; None leaves it as written)."""
_LINK = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)")


def _rewrite_links(lines: list[str], fix: LinkFix) -> list[str]:
    """Rewrite the inline links of the prose lines (code blocks are left as written)."""
    def one(match: re.Match[str]) -> str:
        target = fix(match.group(2))
        if target is None:
            return match.group(0)
        return f"[{match.group(1)}]({target})" if target else match.group(1)

    return [line if code else _LINK.sub(one, line) for line, code in zip(lines, _code_flags(lines))]


def _link_fixer(corpus: Corpus, rule: Rule, in_bundle: set[str], from_file: str) -> LinkFix:
    """Links between rule files become links between the bundle's rule files (or to the published page of a rule
    the bundle leaves out); a link to another handbook page becomes its published address."""
    by_path = {r.path: r for r in corpus.rules}

    def fix(href: str) -> str | None:
        if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith(("#", "/")):
            return None
        path = href.split("#", 1)[0]
        if not path.endswith(".md"):
            return None
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(rule.path), path))
        target = by_path.get(resolved)
        if target is not None and target.id in in_bundle:
            return relative(from_file, rule_file(target.id))
        if target is not None:
            return corpus.page_url(target)
        if corpus.site and resolved.startswith("content/"):
            return f"{corpus.site}{corpus.version}/{resolved.removeprefix('content/').removesuffix('.md')}/"
        return ""

    return fix


def _sections(rule: Rule, page: str) -> list[tuple[str, list[str]]]:
    """The body as ``(heading, lines)`` pairs (heading "" for the text before the first), WRONG code out and
    CORRECT code labelled."""
    lines = rule.body.split("\n")
    for snippet in sorted(rule.snippets, key=lambda s: s.location.line, reverse=True):
        start = snippet.location.line - rule.body_line
        end = (snippet.location.end_line or snippet.location.line) - rule.body_line
        if not (0 <= start < len(lines) and lines[start].lstrip().startswith(("```", "~~~"))):
            continue  # the model and the text disagree: keep the text as written
        closed = end < len(lines) and lines[end].strip().startswith(("```", "~~~")) and end > start
        lines[start : end + 1 if closed else len(lines)] = _snippet_lines(snippet, page)
    headings = set(rule.sections)
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line, code in zip(lines, _code_flags(lines)):
        if not code and line.startswith("## ") and line[3:].strip() in headings:
            sections.append((line[3:].strip(), []))
        else:
            sections[-1][1].append(line)
    return sections


def rule_body(rule: Rule, page: str = "") -> str:
    """The rule's whole prose with its sections one level down (``###``), WRONG code out and CORRECT code labelled:
    the body of a rule read alone, outside the bundle (the handbook's MCP server hands it out)."""
    parts = []
    for heading, body in _sections(rule, page):
        parts += [f"### {heading}", ""] if heading else []
        parts += [text, ""] if (text := "\n".join(body).strip()) else []
    return "\n".join(parts).strip()


def _checked_by(rule: Rule, static: bool) -> list[str]:
    """The generated *How it is checked* section: what proves the rule and which script runs that."""
    if rule.check != "automated" or not rule.probe:
        return ["Manual: a reviewer judges it (no probe can see it from outside the server)."]
    lines = [f"Automated: probe `{rule.probe}` ({rule.clause_summary})."]
    if static:
        lines.append(f"`{CHECK_TOOL}` checks it on a tool definition before any server runs; "
                     f"`{AUDIT_SERVER}` checks it on a running server.")
    else:
        lines.append(f"`{AUDIT_SERVER}` checks it on a running server.")
    return lines


def rule_reference(corpus: Corpus, rule: Rule, in_bundle: set[str], *, static: bool) -> str:
    """``references/rules/<ID>.md``: one rule, whole enough to act on, small enough to load alone."""
    me = rule_file(rule.id)
    page = corpus.page_url(rule)
    gate = corpus.gate(rule.gate)
    lines = [f"# {rule.id} · {rule.title}", "", _meta_line(rule), ""]
    lines += [f"> {rule.summary}", ""] if rule.summary else []
    lines += [f"**Fix:** {rule.fix}", ""] if rule.fix else []
    where = [f"Page (doctrine {corpus.version}): {page}"] if page else []
    where += [f"Gate: [{gate.title if gate else rule.gate}]({relative(me, reference_name(rule.gate))})"]
    related = [r for r in rule.related if r in in_bundle]
    where += ["Related: " + ", ".join(f"[{r}]({relative(me, rule_file(r))})" for r in related)] if related else []
    lines += [" · ".join(where), ""]
    fix = _link_fixer(corpus, rule, in_bundle, me)
    for heading, body in _sections(rule, page):
        if heading and heading not in KEPT_SECTIONS:
            continue
        text = "\n".join(_rewrite_links(body, fix)).strip()
        if heading:
            lines += [f"## {heading}", ""]
        lines += [text, ""] if text else []
    lines += ["## How it is checked", "", *_checked_by(rule, static), ""]
    return "\n".join(lines)


def gate_index(corpus: Corpus, gate: Gate, rules: Sequence[Rule], static: set[str]) -> str:
    """``references/<gate>.md``: the gate's rules one line each, so an agent picks the one file it needs."""
    me = reference_name(gate.key)
    lines = [f"# {gate.title}", ""]
    lines += [gate.summary, ""] if gate.summary else []
    lines += [
        f"Doctrine {corpus.version}: {len(rules)} rule(s). Open only the rule file you need: each holds the claim, "
        "why, CORRECT code, pitfalls, when to deviate, how it is checked and its page. "
        f"*static*: `{CHECK_TOOL}` checks it on a tool definition.", "",
        SCOPE_NOTE, "",
    ]
    for rule in rules:
        tags = [rule.severity, rule.scope if rule.scope != "stack" else f"stack: {rule.stack}"]
        tags += ["static"] if rule.id in static else []
        summary = f" {rule.summary}" if rule.summary else ""
        lines.append(f"- [{rule.id}]({relative(me, rule_file(rule.id))}) {rule.title.rstrip('.')} "
                     f"({', '.join(tags)}).{summary}")
    return "\n".join(lines) + "\n"


def threats_reference(corpus: Corpus, rules: Sequence[Rule]) -> str:
    """``references/threats.md``: each OWASP MCP Top 10 category, the bundle's rules that address it, and what
    a server author cannot address there (so an agent does not promise a fix that belongs to the host)."""
    by_category = rules_by_category(rules)

    def link(r: Rule) -> str:
        return f"[{r.id}]({relative(THREATS_REFERENCE, rule_file(r.id))})"

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
        lines += [f"- {link(r)} {r.title.rstrip('.')}" for r in found] or ["No rule of this bundle addresses it."]
        lines += ["", f"What a server author cannot address: {c.beyond_server}"]
    return "\n".join(lines) + "\n"


def skill_md(corpus: Corpus, name: str, rules: Sequence[Rule], gates: Sequence[Gate], stamp: Stamp,
             static: set[str]) -> str:
    """``SKILL.md``: how to use the skill, when to run its scripts, the high-severity rules, and the index."""
    front = yaml.safe_dump({"name": name, "description": description(corpus, gates, stamp),
                            "metadata": {"doctrine-version": corpus.version, "commit": stamp.commit[:12]}},
                           sort_keys=False, allow_unicode=True, width=10_000)
    high = [r for r in rules if r.severity == "high"]
    checked = [r.id for r in rules if r.id in static]
    example = rule_file(high[0].id if high else rules[0].id)
    lines = [
        "---", front.rstrip("\n"), "---", "",
        "# MCP Server Authoring Handbook", "",
        f"Doctrine {stamp.doctrine_version} (commit {stamp.commit[:12]}, exported {stamp.date}; filters: {stamp.filters_text}). "
        f"{len(rules)} rule(s) in {len(gates)} gate(s), each in a file of its own.", "",
        "## How to use this skill", "",
        "1. While writing or changing MCP server code, keep the high-severity rules below.",
        "2. Load only what the task needs. Find the area in the index at the end, open that gate's file (one line per "
        f"rule), then open only the rules you need. A rule's file is `{RULES_FOLDER}/<ID>.md` (e.g. `{example}`): its "
        "claim, why it matters, CORRECT code to start from, pitfalls, when to deviate, how it is checked, its page.",
        "3. Never write code the handbook calls WRONG: rule files leave it out on purpose.",
        "4. **universal** rules hold for every server; **opinionated** ones are the default (deviate only for the "
        "reason the rule's *When to deviate* gives); **stack** ones only for the named stack.",
        "5. When reviewing, name each broken rule by id and link its page.",
        "",
        "## Scripts: when to run them", "",
        "Both need the handbook's toolchain (`pip install mcp-handbook`) and judge with its doctrine.", "",
        f"- [{CHECK_TOOL}]({CHECK_TOOL}): run it whenever you write or change a tool definition (name, title, "
        "description, inputSchema, annotations), before any server runs: "
        f"`python3 {CHECK_TOOL} tool.json` (or `-` and the JSON on stdin; a tool, an array or a tools/list result). "
        "It prints each failed rule id with the reason an audit would give, and exits 1 if one fails. It checks "
        + (", ".join(checked) if checked else "no rule of this bundle") + "; the rest need a running server.",
        f"- [{AUDIT_SERVER}]({AUDIT_SERVER}): run it once the server starts, before you call a change done, and when "
        f"asked to review a server: `sh {AUDIT_SERVER} -- <server command>` (stdio) or `sh {AUDIT_SERVER} --url URL`. "
        "It runs every automated rule's probe, prints the summary (each failed rule with its reason), writes the "
        "worksheet to `mcp-audit.md`, and exits 1 if a high-severity rule fails. It calls only read-only tools "
        "unless told otherwise: audit your own server, in a sandbox.",
        "",
        f"## High-severity rules ({len(high)})", "",
    ]
    lines += [f"- [{r.id}]({rule_file(r.id)}) {r.title.rstrip('.')}." for r in high]
    lines += ["", "## Index: which file to open", "", "| When you work on | Open | Rules |", "|---|---|---|"]
    for gate in gates:
        count = sum(r.gate == gate.key for r in rules)
        what = gate.summary.rstrip(".") if gate.summary else gate.title
        lines.append(f"| {gate.title}: {what} | [{reference_name(gate.key)}]({reference_name(gate.key)}) | {count} |")
    lines.append(f"| Which threats the rules address ({OWASP_MCP_TOP10}), and what a server author cannot "
                 f"address | [{THREATS_REFERENCE}]({THREATS_REFERENCE}) | {len(rules)} |")
    return "\n".join(lines) + "\n"
