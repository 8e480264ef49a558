"""What a rule page says about its claim's authority and its proof's reach: the specification's own sentences
under the claim, the attack a security rule stops, which clauses a probe observes and which it cannot, and how
each block that no probe proves is run by the tests.

Everything here reads the model alone: the page says what the test suite does with each block (the suite must
pass for the site to be published), never more than that.
"""

from __future__ import annotations

from html import escape

from ..model import Rule, Snippet
from .links import spec_url

LANGUAGE_TOOL = {"json": "parsed as JSON", "yaml": "parsed as YAML", "yml": "parsed as YAML", "toml": "parsed as TOML",
                 "sh": "checked by bash -n and shellcheck", "bash": "checked by bash -n and shellcheck",
                 "shell": "checked by bash -n and shellcheck"}
"""What the tests do with a block that is not Python (a GitHub workflow in YAML is checked by actionlint too)."""


def _code_spans(text: str) -> str:
    parts = escape(text, quote=False).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))


def quotes_block(rule: Rule) -> str:
    """The sentences of the specification a ``spec-*`` rule rests on, each with the revision and section it is from."""
    if not rule.quotes:
        return ""
    items = []
    for quote in rule.quotes:
        source = str(quote.get("from") or rule.spec)
        url = spec_url(source)
        cite = f'<a class="hb-spec-link" href="{escape(url)}">{escape(source)}</a>' if url else escape(source)
        items.append(f'<p class="hb-quote-text">“{_code_spans(str(quote.get("text", "")))}”</p>'
                     f'<p class="hb-quote-source">— MCP specification {cite}</p>')
    return '<blockquote class="hb-quote">' + "".join(items) + "</blockquote>\n"


def attack_line(rule: Rule) -> str:
    """A security rule's attack, in one sentence."""
    if not rule.attack:
        return ""
    return f'<p class="hb-attack"><strong>The attack:</strong> {_code_spans(rule.attack)}</p>\n'


def clauses_list(rule: Rule) -> str:
    """Which clauses of an automated rule's claim the probe observes (each broken alone by a WRONG block) and which
    no probe can see from outside, with why; empty for a manual rule."""
    if rule.check != "automated" or not rule.clauses:
        return ""
    rows = []
    for clause in rule.clauses:
        says = _code_spans(str(clause.get("says", "")))
        if clause.get("seen_by"):
            reasons = ", ".join(f"<code>{escape(str(r))}</code>" for r in clause["seen_by"])
            rows.append(f'<li class="hb-clause-checked"><span class="hb-clause-mark">✓ checked</span> {says} '
                        f'<span class="hb-clause-how">(fails as {reasons})</span></li>')
        else:
            rows.append(f'<li class="hb-clause-unchecked"><span class="hb-clause-mark">○ not checked</span> {says}: '
                        f'<span class="hb-clause-how">{_code_spans(str(clause.get("unchecked", "")))}</span></li>')
    return '<p class="hb-clauses-head">What the probe establishes, clause by clause:</p><ul class="hb-clauses">' + "".join(rows) + "</ul>"


def run_note(block: Snippet) -> str:
    """How the tests run a block no probe proves, in one line under it."""
    if block.norun:
        return f'<p class="hb-run hb-run-none"><span class="hb-run-mark">○ Not run</span>: {_code_spans(block.norun)}</p>'
    if block.language == "python":
        if block.promise:
            must = "must break" if block.kind == "wrong" else "must keep"
            what = f"run in a process of its own and checked against promise <code>{escape(block.promise)}</code>, which it {must}"
        else:
            what = "run to the end in a process of its own (no observable promise to check)"
    else:
        what = LANGUAGE_TOOL.get(block.language, f"checked as {escape(block.language)}")
    return f'<p class="hb-run"><span class="hb-run-mark">▶ Tested</span>: {what}.</p>'


def run_tally(rule: Rule, blocks: tuple[Snippet, ...]) -> str:
    """How many of a rule's unproved blocks the tests run, check against a promise, check with a tool, or cannot run."""
    if not blocks:
        return ""
    python = [b for b in blocks if b.language == "python" and not b.norun]
    promised = sum(1 for b in python if b.promise)
    tools = sum(1 for b in blocks if b.language != "python" and not b.norun)
    idle = sum(1 for b in blocks if b.norun)
    parts = [f"{len(python)} run by the tests" + (f" ({promised} against a promise)" if promised else "")] if python else []
    parts += [f"{tools} checked by {'their language tools' if tools != 1 else 'its language tool'}"] if tools else []
    parts += [f"{idle} not runnable (the block says why)"] if idle else []
    return f"Its code: {', '.join(parts)}."
