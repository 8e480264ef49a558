"""The few lines a person reads after an audit: the server, findings by severity, failures by place, the file.

Each failure names its rule file first (``path:line: ID FAIL ...``), the
form an editor jumps to, so the reviewer lands on the rule that explains it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ..fields import FINDING_KIND, SEVERITIES
from .plan import DOES_NOT_APPLY, AuditOptions, AuditResult
from .sheet import clean

UNREAD_MARK = "bytes the auditor reads as one message"
"""What every note of a line too long to read says (:func:`~mcp_handbook.wire.oversize_text`)."""


def tool_calls_line(options: AuditOptions) -> str:
    """Which tools the probes could call, and on whose word."""
    if not options.tool_calls:
        return "none (--no-tool-calls): rules whose probes call tools are not checked"
    if options.allow_tool_calls is None:
        return "every tool (--allow-all-tool-calls), with adversarial arguments"
    named = f", plus {', '.join(sorted(options.allow_tool_calls))} (--allow-tool-calls)" if options.allow_tool_calls else ""
    return ("tools annotated readOnlyHint: true" + named + "; annotations are the server's own claim, "
            "not checked: audit a server you do not trust in a sandbox")


def summary_lines(result: AuditResult, *, outputs: list[tuple[Path, str]], manual: int) -> list[str]:
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
    unchecked_security = [f for f in unchecked if f.rule.basis == "security"]
    if unchecked_security and result.facts.answered and not result.stopped:
        ids = ", ".join(f.rule.id for f in unchecked_security)
        lines.insert(0, f"NOT CHECKED: {len(unchecked_security)} security rule(s) could not be checked and are not known to be safe: {ids}")
    elsewhere = sum(1 for f in result.findings if f.na == DOES_NOT_APPLY)
    lines.append(f"  N/A: {elsewhere} do not apply to this server, {len(unchecked)} not checked")
    for severity in SEVERITIES:
        row = counts.get(severity, {})
        lines.append(f"  {severity.upper():<6} {row.get('FAIL', 0)} fail, {row.get('PASS', 0)} pass, {row.get('N/A', 0)} n/a")
    for found in result.failures():
        rule = found.rule
        lines.append(f"{rule.location}: {rule.id} FAIL ({rule.severity}, {FINDING_KIND.get(rule.basis, 'recommendation')}: {rule.scope}, {rule.basis}): {clean(found.finding.summary)[:300]}")
    if result.canary:
        lines.append(f"secret canary came back {len(result.canary)} time(s):")
        lines += [f"  {clean(seen)[:300]}" for seen in result.canary[:5]]
    if result.unread:
        met = sum(1 for f in result.findings
                  if any(UNREAD_MARK in text for text in (f.finding.summary, *f.finding.evidence)))
        more = f" (and {len(result.unread) - 1} more such line(s))" if len(result.unread) > 1 else ""
        lines.append(f"UNREAD: {clean(result.unread[0])[:300]}{more}; {met} rule(s) whose probes met one say so "
                     "(N/A, not checked, or a note on their FAIL)")
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
    if not result.facts.answered:
        verdict = "the server could not be audited (no rule was checked): exit 1"
    elif result.stopped and not gating:
        verdict = "the audit stopped before the server could be judged: exit 1"
    lines.append(verdict + (f" ({other} other HIGH failure(s) are recommendations outside the profile)" if other else ""))
    return lines
