"""The few lines a person reads after an audit: what the server can do, the first thing to fix, findings by
severity, each failure with its fix and the rule's published page, the SDK's defaults apart, the file.

The author reads this, not the handbook's checkout: a failure names its rule by id with the rule's ``fix:`` line
and the page that explains it (:meth:`~mcp_handbook.model.Corpus.page_url`), and the FAILs a minimal server on
the same SDK shares (:mod:`.sdk_baseline`) are listed apart, as the SDK's, from the ones the author wrote.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ..fields import FINDING_KIND, SEVERITIES
from ..model import Corpus, Rule
from .plan import DOES_NOT_APPLY, AuditOptions, AuditResult, RuleFinding
from .powers import powers_line
from .server_text import clean

UNREAD_MARK = "bytes the auditor reads as one message"
"""What every note of a line too long to read says (:func:`~mcp_handbook.wire_reading.oversize_text`)."""


def tool_calls_line(options: AuditOptions) -> str:
    """Which tools the probes could call, and on whose word."""
    if not options.tool_calls:
        return ("none (--no-tool-calls): no tools/call, prompts/get, resources/read or completion/complete; rules whose "
                "probes need one are not checked")
    if options.allow_tool_calls is None:
        return "every tool (--allow-all-tool-calls), with adversarial arguments"
    named = f", plus {', '.join(sorted(options.allow_tool_calls))} (--allow-tool-calls)" if options.allow_tool_calls else ""
    return ("tools annotated readOnlyHint: true" + named + "; annotations are the server's own claim, "
            "not checked: audit a server you do not trust in a sandbox; prompts that look like they run commands or "
            "code are not rendered unless named")


def short_why(summary: str) -> str:
    """Why a rule was not checked, in the few words before its N/A's explanation: ``stdio-only probe``, ``root
    unknown``, ``the audit cannot see which address the server listens on``."""
    why = summary.removeprefix("not checked: ")
    for stop in (" (", "; ", ": "):
        why = why.split(stop, 1)[0]
    return why if len(why) <= 90 else why[:89] + "…"


def not_checked_banner(unchecked: list[RuleFinding]) -> list[str]:
    """The banner a reader must not miss: every HIGH rule and every security rule that was not checked, whatever its
    basis (a HIGH spec rule left unchecked is as unknown as a security one), grouped by why, in the rules' order."""
    shown = [f for f in unchecked if f.rule.severity == "high" or f.rule.basis == "security"]
    if not shown:
        return []
    high = sum(1 for f in shown if f.rule.severity == "high")
    by_why: dict[str, list[str]] = {}
    for found in shown:
        by_why.setdefault(short_why(clean(found.finding.summary)), []).append(found.rule.id)
    return [f"NOT CHECKED: {len(shown)} rule(s), {high} of them HIGH, every HIGH or security rule that could not be "
            "checked; they are not known to be safe:",
            *(f"  {', '.join(ids)}: {why}" for why, ids in by_why.items())]


def page_of(rule: Rule, corpus: Corpus | None) -> str:
    """Where the author reads the rule: its published page, or its file when no corpus (and so no site) is known."""
    return (corpus.page_url(rule) if corpus is not None else "") or str(rule.location)


def fix_line(found: RuleFinding, corpus: Corpus | None) -> str:
    """``fix: <the rule's fix line> · <its page>``: what to change, and where the rule explains why."""
    fix = found.rule.fix or found.rule.title
    return f"fix: {fix} · {page_of(found.rule, corpus)}"


def _failure(found: RuleFinding) -> str:
    rule = found.rule
    return (f"{rule.id} FAIL ({rule.severity}, {FINDING_KIND.get(rule.basis, 'recommendation')}: {rule.scope}, "
            f"{rule.basis}): {clean(found.finding.summary)[:300]}")


def first_to_fix(result: AuditResult, corpus: Corpus | None = None) -> str:
    """The highest-severity FAIL the author owns (the SDK's defaults come after), in one line; "" when none."""
    own = result.own_failures()
    if not own:
        inherited = [f for f in result.failures() if result.inherited_from(f.rule.id)]
        return (f"fix first: nothing the author wrote fails; {len(inherited)} FAIL(s) are {result.sdk}'s defaults "
                "(below)") if inherited else ""
    found = own[0]
    return f"fix first: {found.rule.id} ({found.rule.severity}) {fix_line(found, corpus).removeprefix('fix: ')}"


def opening_lines(result: AuditResult, corpus: Corpus | None = None) -> list[str]:
    """What the server can do, and the first thing to fix: the two lines an audit opens with."""
    if not result.facts.answered:
        return []
    lines = [powers_line(result.facts.tools, result.facts.tools_listed)]
    first = first_to_fix(result, corpus)
    return lines + ([first] if first else [])


def inherited_lines(result: AuditResult, corpus: Corpus | None = None) -> list[str]:
    """The SDK's defaults, apart: still FAILs, with what to override or report upstream; and those whose rule allows
    keeping the default (N/A, does not apply)."""
    lines = []
    failing = [f for f in result.failures() if result.inherited_from(f.rule.id)]
    if failing:
        lines.append(f"inherited from {result.sdk} (a minimal server built on it fails the same way): override each "
                     "default in your server, or report it upstream; they still count as FAILs:")
        for found in failing:
            lines += [f"  {_failure(found)}", f"    override: {fix_line(found, corpus).removeprefix('fix: ')}"]
    kept = [i for i in result.inherited if i.deviation]
    for item in kept:
        lines.append(f"kept default of {item.sdk}, allowed by the rule: {item.rule_id} N/A ({clean(item.deviation)[:300]})")
    if result.baseline_note:
        lines.append(f"SDK comparison: {clean(result.baseline_note)[:300]}")
    return lines


def started_line(result: AuditResult) -> str:
    """How many server processes the audit started, and for what: the figure that tells where a slow audit's time
    went, the same on a busy machine as on an idle one."""
    most = sorted(result.starts, key=lambda item: -item[1])
    parts = ", ".join(f"{name} {n}" for name, n in most[:6]) + (", …" if len(most) > 6 else "")
    return f"{result.started()} ({parts})"


def summary_lines(result: AuditResult, *, outputs: list[tuple[Path, str]], manual: int, corpus: Corpus | None = None) -> list[str]:
    counts = result.counts()
    checked = len(result.findings)
    lines = [
        f"audit of {shlex.join(result.command)}: {checked} automated rule(s) in {result.seconds:.1f} s",
        f"  server: {clean(result.facts.describe())}",
        f"  transport: {clean(result.facts.transport_text())}",
        f"  tool calls: {tool_calls_line(result.options)}",
    ]
    if not result.facts.answered:
        lines.insert(0, f"NOT AUDITED: {clean(result.facts.describe())}; every rule is N/A, not checked")
    elif result.stopped:
        lines.insert(0, f"STOPPED: {clean(result.stopped)[:400]}; every rule that needed its answers is N/A, not checked")
    unchecked = result.not_checked()
    if result.facts.answered and not result.stopped:
        lines[0:0] = not_checked_banner(unchecked)
    elsewhere = sum(1 for f in result.findings if f.na == DOES_NOT_APPLY)
    lines.append(f"  N/A: {elsewhere} do not apply to this server, {len(unchecked)} not checked")
    for severity in SEVERITIES:
        row = counts.get(severity, {})
        lines.append(f"  {severity.upper():<6} {row.get('FAIL', 0)} fail, {row.get('PASS', 0)} pass, {row.get('N/A', 0)} n/a")
    for found in result.own_failures():
        lines += [_failure(found), f"  {fix_line(found, corpus)}"]
    lines += inherited_lines(result, corpus)
    if result.canary:
        lines.append(f"secret canary came back {len(result.canary)} time(s):")
        lines += [f"  {clean(seen)[:300]}" for seen in result.canary[:5]]
    if result.unread:
        met = sum(1 for f in result.findings
                  if any(UNREAD_MARK in text for text in (f.finding.summary, *f.finding.evidence)))
        more = f" (and {len(result.unread) - 1} more such line(s))" if len(result.unread) > 1 else ""
        lines.append(f"UNREAD: {clean(result.unread[0])[:300]}{more}; {met} rule(s) whose probes met one say so "
                     "(N/A, not checked, or a note on their FAIL)")
    if result.started():
        lines.append(f"  servers started: {started_line(result)}")
    if result.killed:
        lines.append(f"killed {len(result.killed)} process(es) the server left running outside its process group:")
        lines += [f"  {clean(k)[:300]}" for k in result.killed[:5]]
        if len(result.killed) > 5:
            lines.append(f"  … and {len(result.killed) - 5} more")
    if not result.facts.answered and "exited" in result.facts.problem:
        lines.append("  (the server runs in an empty temporary directory: give file paths in its command as absolute paths)")
    for worksheet, fmt in outputs:
        if fmt == "sarif":
            lines.append(f"{worksheet}: wrote the findings as SARIF ({len(result.failures())} result(s) for code scanning)")
        else:
            lines.append(f"{worksheet}: wrote the worksheet ({fmt}; {checked} checked, {manual} manual item(s) left for the reviewer)")
    gate = result.options.gate
    gating = len(result.gating())
    other = sum(1 for f in result.failures() if f.rule.severity == "high") - gating
    verdict = f"{gating} HIGH rule(s) of the {gate} profile failed: exit 1" if gating else f"no HIGH rule of the {gate} profile failed: exit 0"
    if not gating and (withheld := result.withheld()):
        verdict = (f"no HIGH rule of the {gate} profile failed, but {len(withheld)} HIGH rule(s) of it were not checked "
                   f"under --no-tool-calls ({', '.join(f.rule.id for f in withheld[:8])}"
                   f"{', …' if len(withheld) > 8 else ''}): not known to pass: exit {result.exit_code}")
    if not result.facts.answered:
        verdict = "the server could not be audited (no rule was checked): exit 1"
    elif result.stopped and not gating:
        verdict = "the audit stopped before the server could be judged: exit 1"
    lines.append(verdict + (f" ({other} other HIGH failure(s) are recommendations outside the profile)" if other else ""))
    banners = next((n for n, line in enumerate(lines) if line.startswith("audit of ")), 0)
    return lines[:banners] + opening_lines(result, corpus) + lines[banners:]  # what must not be missed comes first
