"""The few lines a person reads after an audit: the server, findings by severity, failures by place, the file.

Each failure names its rule file first (``path:line: ID FAIL ...``), the
form an editor jumps to, so the reviewer lands on the rule that explains it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ..fields import SEVERITIES
from .plan import AuditResult
from .sheet import clean


def summary_lines(result: AuditResult, *, worksheet: Path, fmt: str, manual: int) -> list[str]:
    counts = result.counts()
    checked = len(result.findings)
    lines = [
        f"audit of {shlex.join(result.command)}: {checked} automated rule(s) in {result.seconds:.1f} s",
        f"  server: {clean(result.facts.describe())}",
    ]
    for severity in SEVERITIES:
        row = counts.get(severity, {})
        lines.append(f"  {severity.upper():<6} {row.get('FAIL', 0)} fail, {row.get('PASS', 0)} pass, {row.get('N/A', 0)} n/a")
    for found in result.failures():
        rule = found.rule
        lines.append(f"{rule.location}: {rule.id} FAIL ({rule.severity}): {clean(found.finding.summary)[:300]}")
    if result.canary:
        lines.append(f"secret canary came back {len(result.canary)} time(s):")
        lines += [f"  {clean(seen)[:300]}" for seen in result.canary[:5]]
    if not result.facts.answered and "exited" in result.facts.problem:
        lines.append("  (the server runs in an empty temporary directory: give file paths in its command as absolute paths)")
    lines.append(f"{worksheet}: wrote the worksheet ({fmt}; {checked} checked, {manual} manual item(s) left for the reviewer)")
    high = sum(1 for f in result.failures() if f.rule.severity == "high")
    lines.append(f"{high} HIGH rule(s) failed: exit 1" if high else "no HIGH rule failed: exit 0")
    return lines
