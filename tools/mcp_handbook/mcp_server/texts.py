"""What the handbook's MCP server hands out, rendered once from the one parsed model.

A rule's resource is what an agent needs to apply it without the site: the claim, why, the CORRECT code, pitfalls
and when to deviate (the rule's own prose, WRONG code left out so it is never copied, as in the skill bundle), and
its page in this doctrine version's site. The index is one line per rule with the URI to read next, so an agent
reads the index and then exactly the rules it needs.
"""

from __future__ import annotations

from ..export.filters import normalise
from ..export.worksheet import stamp_for, to_json, to_markdown, worksheet_rows
from ..model import Corpus, Rule
from ..export.skill.render import rule_body
from ..threats import threat_label

SCHEME = "handbook"
INDEX_URI = f"{SCHEME}://rules"
WORKSHEET_MD_URI = f"{SCHEME}://worksheet.md"
WORKSHEET_JSON_URI = f"{SCHEME}://worksheet.json"


def rule_uri(rule: Rule) -> str:
    return f"{INDEX_URI}/{rule.id}"


def facts_line(rule: Rule) -> str:
    """Scope, basis, severity, gate, check, profiles, threats and conditions: what a reader filters by, in one line."""
    scope = f"stack {rule.stack}" if rule.scope == "stack" else rule.scope
    check = f"automated (probe `{rule.probe}`)" if rule.check == "automated" and rule.probe else rule.check
    parts = [scope, f"basis {rule.basis}", f"severity {rule.severity}", f"gate {rule.gate}", f"check {check}",
             f"profiles {', '.join(rule.profiles) or 'none'}"]
    parts += [f"spec {rule.spec}"] if rule.spec else []
    parts += [f"threats {', '.join(threat_label(t) for t in rule.threats)}"] if rule.threats else []
    parts += [f"applies only when: {', '.join(rule.conditions)}"] if rule.conditions else []
    return "*" + " · ".join(parts) + "*"


def rule_markdown(corpus: Corpus, rule: Rule) -> str:
    """One rule, alone: heading, facts, claim, its published page, its prose with CORRECT code, and its fix."""
    lines = [f"# {rule.id} · {rule.title}", "", facts_line(rule), ""]
    lines += [f"> {rule.summary}", ""] if rule.summary else []
    page = corpus.page_url(rule)
    lines += [f"Published page (doctrine {corpus.version}): {page}", ""] if page else []
    lines += [rule_body(rule, page), ""]
    lines += ["## Fix when an audit fails it", "", rule.fix, ""] if rule.fix else []
    lines += [f"Related: {', '.join(f'{r} ({INDEX_URI}/{r})' for r in rule.related)}", ""] if rule.related else []
    return "\n".join(lines)


def index_markdown(corpus: Corpus) -> str:
    """Every rule as one line under its gate, with the URI of its resource: read this first, then one rule."""
    lines = [f"# MCP Server Authoring Handbook: rule index (doctrine {corpus.version})", "",
             f"{len(corpus.rules)} rules. Read one rule with `resources/read` on the URI in its line; the tool "
             "`find_rules` narrows by text, gate, profile, threat or severity. Profiles: spec (the specification's "
             "MUST and SHOULD), baseline (spec plus security: every universal rule), full (everything).", ""]
    for gate in corpus.gates:
        rules = [r for r in corpus.rules if r.gate == gate.key]
        if not rules:
            continue
        lines += [f"## {gate.title} (`{gate.key}`)", ""]
        lines += [f"- {r.id} [{r.severity}, {r.scope}] {r.title}: {rule_uri(r)}" for r in rules]
        lines.append("")
    return "\n".join(lines)


def worksheet(corpus: Corpus, fmt: str) -> str:
    """The whole worksheet, blank, as the export writes it (``md`` or ``json``)."""
    stamp = stamp_for(corpus, filters=normalise(None))
    rows = worksheet_rows(corpus.rules, corpus)
    return to_markdown(rows, stamp) if fmt == "md" else to_json(rows, stamp)


def _high_rules(corpus: Corpus, profile: str, gates: tuple[str, ...] = ()) -> list[str]:
    return [f"- {r.id} ({r.gate}) {r.title}: {rule_uri(r)}" for r in corpus.rules
            if r.severity == "high" and profile in r.profiles and (not gates or r.gate in gates)]


def review_prompt(corpus: Corpus, how_it_runs: str) -> str:
    """The review task: what to read, what to run, how to report, for the server described."""
    lines = [
        f"Review this MCP server against the MCP Server Authoring Handbook's baseline profile (doctrine "
        f"{corpus.version}): the specification's MUST and SHOULD plus the security rules, every universal rule.",
        "", "How the server is run (as the user described it):", "", "```text", how_it_runs.strip(), "```", "",
        "Steps:",
        "1. Run the auditor on it: `mcp-handbook audit -o audit.md --gate baseline -- <command>` for a stdio server, "
        "or `--url <endpoint>` for a running Streamable HTTP one (add `--root DIR` when it serves a folder). If "
        "this server offers the tool audit_server, it does the same.",
        "2. For each FAIL, read the rule's resource (handbook://rules/<ID>) and point at the code that breaks it, "
        "with the rule's CORRECT code as the fix.",
        "3. Each N/A marked *not checked* is unknown, not safe: judge it by reading the code.",
        "4. Judge the manual rules of the profile by reading the code; find_rules with profile=baseline lists them "
        "with the automated ones.",
        "5. Report the findings by severity, each with the rule id, the evidence and the fix.", "",
        "The HIGH rules of the baseline profile, to read first:", "", *_high_rules(corpus, "baseline"),
    ]
    return "\n".join(lines) + "\n"


TOOL_GATES = ("tool-definitions", "agent-ux")


def tool_prompt(corpus: Corpus, what_it_does: str) -> str:
    """The writing task: the rules a tool definition must keep, and the check to run on the result."""
    rules = [f"- {r.id} [{r.severity}] {r.title}" + (f": {r.fix}" if r.fix else "") for r in corpus.rules
             if r.gate in TOOL_GATES and r.check == "automated"]
    lines = [
        "Write one MCP tool definition (the JSON object tools/list would list) for this tool:", "",
        "```text", what_it_does.strip(), "```", "",
        f"It must pass the tool-definitions and agent-UX gates of the MCP Server Authoring Handbook (doctrine "
        f"{corpus.version}). The automated rules, each with what keeps it:", "", *rules, "",
        "Then call the tool check_tool_definition with the definition as its `tool` argument, fix every FAIL it "
        "reports (each names the rule, the reason and the place), and call it again until `failed` is empty. Read "
        "a rule's resource (handbook://rules/<ID>) when its fix is not clear. Give the final definition as JSON, "
        "then the handler's argument checks it implies.",
    ]
    return "\n".join(lines) + "\n"
