"""The verification panels: what a block did when its rule's probe ran, from the recorded proofs.

A proof is shown only when it was recorded for the block's current code,
seam and probe; otherwise the page says plainly that it is missing or out of
date, so a reader never mistakes an old transcript for a current one.
"""

from __future__ import annotations

import re
import tempfile
from html import escape
from pathlib import Path
from typing import Any

from ..proving.evidence import provable
from ..model import Rule, Snippet
from .claims import clauses_list, run_tally
from .links import href, rule_src
from .state import SiteData

RUN_HINT = "run <code>mcp-handbook evidence</code>"
NOT_SEARCHED = 'data-search-exclude="true"'
"""Transcripts and page furniture are not text to search for; material's index skips them."""
PROOFS_SRC = "proofs.md"
"""The page that explains proofs and the transcript notation."""
AUDIT_SRC = "audit.md"
"""The page that walks through an audit."""
PLACEHOLDERS: tuple[tuple[re.Pattern[str], str], ...] = (
    # what evidence.scrub wrote for the proof's temporary folder, read as what each folder is
    (re.compile(r"\$TMP/ws(?![\w.-])"), "<workspace>"),
    (re.compile(r"\$TMP/srv(?![\w.-])"), "<server-code>"),
    (re.compile(r"\$TMP(?!\w)"), "<temp>"),
)
TEMP_FOLDERS = re.compile(r"(?<![\w.])(?:/private)?(?:/tmp|/var/tmp|/var/folders(?:/[\w.-]+){3})/[\w.-]+")
"""A temporary folder of whatever machine recorded the proof (``/tmp/hb-verify-x1y2``, macOS's ``/var/folders``)."""


def machine_free(text: str, *, checkout: Path | None = None) -> str:
    """A transcript line with no path of the machine that recorded it or builds the site: temporary folders, the
    checkout, read as placeholders (``<workspace>``, ``<temp>``, ``<checkout>``)."""
    if checkout is not None and len(checkout.parts) > 1:
        text = text.replace(str(checkout), "<checkout>")
    for pattern, name in PLACEHOLDERS:
        text = pattern.sub(name, text)
    local_temp = tempfile.gettempdir()
    if local_temp not in ("/", "") and local_temp + "/" in text:
        text = re.sub(re.escape(local_temp) + r"/[\w.-]+", "<temp>", text)
    return TEMP_FOLDERS.sub("<temp>", text)


def _notation(data: SiteData, rule: Rule) -> str:
    """One line under a transcript's summary: the marks it uses, and where the rest are explained."""
    page = href(PROOFS_SRC, from_src=rule_src(rule), directory_urls=data.directory_urls)
    return (
        '<p class="hb-transcript-legend"><code>&gt;&gt;&gt;</code> sent to the server · '
        "<code>&lt;&lt;&lt;</code> the server&#x27;s reply · <code>err</code> its stderr · "
        "<code>-&gt;</code> what a call returned · <code>…</code> cut short · "
        f'<code>&lt;…&gt;</code> a placeholder (<a href="{page}#reading-a-transcript">all marks</a>)</p>'
    )


def _transcript(data: SiteData, rule: Rule, entry: dict[str, Any], *, open_: bool) -> str:
    rows = [str(e) for e in entry.get("evidence") or () if str(e).strip()]
    if not rows:
        return ""
    text = escape(machine_free("\n".join(rows), checkout=data.corpus.root))
    opened = " open" if open_ else ""
    return (
        f'<details class="hb-transcript"{opened}><summary>What the probe saw ({len(rows)} line{"s" if len(rows) != 1 else ""})</summary>'
        f"{_notation(data, rule)}<pre><code>{text}</code></pre></details>"
    )


def _verdict(entry: dict[str, Any], snippet: Snippet, *, clean: Any) -> tuple[str, str]:
    expected, status = entry.get("expected", ""), entry.get("status", "")
    probe = f"<code>{escape(str(entry.get('probe', '')))}</code>"
    what = escape(clean(str(entry.get("summary", ""))))
    if entry.get("ok") and snippet.kind == "wrong":
        reason = escape(str(entry.get("reason", "")))
        meaning = escape(str(entry.get("reason_meaning", "")))
        because = f": <code>{reason}</code>" + (f" ({meaning})" if meaning else "") if reason else ""
        return "hb-proof-expected", (
            f'<span class="hb-proof-mark">✗ The probe failed, as expected</span>{because}. Probe {probe}: {what}'
        )
    if entry.get("ok"):
        return "hb-proof-ok", (f'<span class="hb-proof-mark">✓ Proved</span>: probe {probe} said '
                               f"<strong>{escape(status)}</strong>, as a CORRECT block must. {what}")
    if entry.get("broken"):
        return "hb-proof-bad", f'<span class="hb-proof-mark">✗ Not proved</span>: the block is broken: {escape(clean(str(entry["broken"])))}'
    return "hb-proof-bad", (
        f'<span class="hb-proof-mark">✗ Not proved</span>: expected probe {probe} to say <strong>{escape(expected)}</strong>, '
        f"it said <strong>{escape(status or 'nothing')}</strong>. {what}"
    )


def proof_panel(data: SiteData, rule: Rule, snippet: Snippet) -> str:
    """The panel under one block (empty for blocks no probe runs); one HTML line group, no blank lines.

    A WRONG block's transcript is open: it shows the break. A CORRECT block's is folded: it shows nothing went wrong.
    """
    if not provable(rule, snippet):
        return ""
    entry, current = data.proof(rule, snippet)
    if entry is None:
        return (f'<div class="hb-proof hb-proof-missing" role="note" {NOT_SEARCHED}><p><span class="hb-proof-mark">'
                f"⚠ No recorded proof</span> for this block yet: {RUN_HINT}.</p></div>")
    if not current:
        return (
            f'<div class="hb-proof hb-proof-missing" role="note" {NOT_SEARCHED}><p><span class="hb-proof-mark">⚠ Proof out of date</span>: '
            f"it was recorded for other code, seam or probe than shown here; {RUN_HINT}.</p></div>"
        )
    css, text = _verdict(entry, snippet, clean=lambda t: machine_free(t, checkout=data.corpus.root))
    transcript = _transcript(data, rule, entry, open_=snippet.kind == "wrong")
    return f'<div class="hb-proof {css}" role="note" {NOT_SEARCHED}><p class="hb-proof-verdict">{text}</p>{transcript}</div>'


def audit_command(rule: Rule) -> str:
    """The command that checks only this rule against someone's server."""
    return f"mcp-handbook audit --rule {rule.id} -o {rule.id.lower()}.json -- YOUR-SERVER-COMMAND"


def _audit_line(data: SiteData, rule: Rule) -> str:
    page = href(AUDIT_SRC, from_src=rule_src(rule), directory_urls=data.directory_urls)
    folder = (
        " Write <code>{workspace}</code> in the command where your server takes its folder, or add <code>--root DIR</code>."
        if "takes-paths" in rule.conditions else ""
    )
    return (
        f'<p class="hb-audit-command">Check your own server for this rule alone: <code>{escape(audit_command(rule))}</code>.'
        f'{folder} <a href="{page}">Run an audit</a> says more.</p>'
    )


def verification_summary(data: SiteData, rule: Rule) -> str:
    """One panel saying how the rule is checked and how many of its blocks are proved right now."""
    unproved = tuple(b for b in rule.blocks if not provable(rule, b))
    code = f" {run_tally(rule, unproved)}" if unproved else ""
    if rule.check != "automated":
        return (
            f'<div class="hb-verification hb-verification-manual" {NOT_SEARCHED}><p><strong>Verification: manual.</strong> '
            f'A reviewer judges this rule; <a href="#how-it-is-verified">How it is verified</a> says exactly how.{code}</p></div>\n'
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
    proofs = href(PROOFS_SRC, from_src=rule_src(rule), directory_urls=data.directory_urls)
    return (
        f'<div class="hb-verification {state}" {NOT_SEARCHED}><p><strong>Verification: automated.</strong> '
        f"Probe <code>{escape(rule.probe)}</code>{observes} runs over a real stdio pipe against the reference server "
        f'with each block mounted at its seam (<a href="{proofs}">how proofs work</a>). {tally}.</p>'
        f"{clauses_list(rule)}{f'<p>{code.strip()}</p>' if code else ''}{_audit_line(data, rule)}</div>\n"
    )
