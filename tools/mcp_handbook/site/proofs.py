"""The verification panels: what a block did when its rule's probe ran, from the recorded proofs.

A proof is shown only when it was recorded for the block's current code,
seam and probe; otherwise the page says plainly that it is missing or out of
date, so a reader never mistakes an old transcript for a current one.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..evidence import provable
from ..model import Rule, Snippet
from .state import SiteData

RUN_HINT = "run <code>mcp-handbook evidence</code>"
NOT_SEARCHED = 'data-search-exclude="true"'
"""Transcripts are evidence to read beside the code, not text to search for; material's index skips them."""


def _transcript(entry: dict[str, Any]) -> str:
    rows = [str(e) for e in entry.get("evidence") or () if str(e).strip()]
    if not rows:
        return ""
    text = escape("\n".join(rows))
    return (
        f'<details class="hb-transcript" open><summary>What the probe saw ({len(rows)} line{"s" if len(rows) != 1 else ""})</summary>'
        f"<pre><code>{text}</code></pre></details>"
    )


def _verdict(entry: dict[str, Any], snippet: Snippet) -> tuple[str, str]:
    expected, status = entry.get("expected", ""), entry.get("status", "")
    probe = f"<code>{escape(str(entry.get('probe', '')))}</code>"
    what = escape(str(entry.get("summary", "")))
    if entry.get("ok") and snippet.kind == "wrong":
        reason = escape(str(entry.get("reason", "")))
        meaning = escape(str(entry.get("reason_meaning", "")))
        because = f": <code>{reason}</code>" + (f" ({meaning})" if meaning else "") if reason else ""
        return "hb-proof-expected", (
            f'<span class="hb-proof-mark">✗ The probe failed, as expected</span>{because}. Probe {probe}: {what}'
        )
    if entry.get("ok"):
        return "hb-proof-ok", f'<span class="hb-proof-mark">✓ Proved</span>: probe {probe} said <strong>{escape(status)}</strong>, as a CORRECT block must. {what}'
    if entry.get("broken"):
        return "hb-proof-bad", f'<span class="hb-proof-mark">✗ Not proved</span>: the block is broken: {escape(str(entry["broken"]))}'
    return "hb-proof-bad", (
        f'<span class="hb-proof-mark">✗ Not proved</span>: expected probe {probe} to say <strong>{escape(expected)}</strong>, '
        f"it said <strong>{escape(status or 'nothing')}</strong>. {what}"
    )


def proof_panel(data: SiteData, rule: Rule, snippet: Snippet) -> str:
    """The panel under one block (empty for blocks no probe runs); one HTML line group, no blank lines."""
    if not provable(rule, snippet):
        return ""
    entry, current = data.proof(rule, snippet)
    if entry is None:
        return f'<div class="hb-proof hb-proof-missing" role="note" {NOT_SEARCHED}><p><span class="hb-proof-mark">⚠ No recorded proof</span> for this block yet: {RUN_HINT}.</p></div>'
    if not current:
        return (
            f'<div class="hb-proof hb-proof-missing" role="note" {NOT_SEARCHED}><p><span class="hb-proof-mark">⚠ Proof out of date</span>: '
            f"it was recorded for other code, seam or probe than shown here; {RUN_HINT}.</p></div>"
        )
    css, text = _verdict(entry, snippet)
    return f'<div class="hb-proof {css}" role="note" {NOT_SEARCHED}><p class="hb-proof-verdict">{text}</p>{_transcript(entry)}</div>'


def verification_summary(data: SiteData, rule: Rule) -> str:
    """One panel saying how the rule is checked and how many of its blocks are proved right now."""
    if rule.check != "automated":
        return (
            '<div class="hb-verification hb-verification-manual"><p><strong>Verification: manual.</strong> '
            'A reviewer judges this rule; <a href="#how-it-is-verified">How it is verified</a> says exactly how.</p></div>\n'
        )
    blocks = [s for s in rule.snippets if provable(rule, s)]
    title = next((str(e.get("probe_title")) for s in blocks if (e := data.proof(rule, s)[0]) and e.get("probe_title")), "")
    observes = f" ({escape(title)})" if title else ""
    proved = sum(1 for s in blocks if (p := data.proof(rule, s))[1] and p[0] and p[0].get("ok"))
    wrong = sum(1 for s in blocks if s.kind == "wrong")
    state = "hb-verification-ok" if blocks and proved == len(blocks) else "hb-verification-open"
    tally = (
        f"{proved} of {len(blocks)} block{'s' if len(blocks) != 1 else ''} proved by a recorded run "
        f"({wrong} WRONG must fail, {len(blocks) - wrong} CORRECT must pass)"
    )
    return (
        f'<div class="hb-verification {state}"><p><strong>Verification: automated.</strong> '
        f"Probe <code>{escape(rule.probe)}</code>{observes} runs over a real stdio pipe against the reference server "
        f"with each block mounted at its seam. {tally}.</p></div>\n"
    )
