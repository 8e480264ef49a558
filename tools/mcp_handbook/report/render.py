"""The report as text for people and as JSON for machines; both built from one :class:`Report`."""

from __future__ import annotations

import json
from typing import Any

from ..export.worksheet import STATUSES
from ..fields import FINDING_KIND, in_profile
from ..threats import OWASP_MCP_TOP10, category, threat_label
from .findings import UNFILLED, Item, Report, Since
from .places import Problem


def finding_kind(item: Item) -> str:
    return FINDING_KIND.get(item.basis, "recommendation")


def threats_text(threats: tuple[str, ...]) -> str:
    """``CWE-22, MCP05 Command injection and execution (OWASP MCP Top 10 (beta, as read ...))``, or ``""``."""
    if not threats:
        return ""
    pinned = f" ({OWASP_MCP_TOP10})" if any(category(t) for t in threats) else ""
    return ", ".join(threat_label(t) for t in threats) + pinned


def _indent(label: str, text: str) -> list[str]:
    if not text:
        return []
    first, *rest = text.split("\n")
    return [f"       {label}: {first}", *(f"       {' ' * len(label)}  {line}" for line in rest)]


def _since_lines(since: Since) -> list[str]:
    ref = f", commit {since.from_ref[:12]}" if since.from_ref else ""
    lines = ["", f"The worksheet was filled against doctrine {since.from_version}{ref}; the doctrine is now {since.to_version}."]
    if not (since.added or since.changed or since.retired):
        lines.append("  No rule it covers has changed since.")
    if since.added:
        lines.append(f"  Added since ({len(since.added)}), not on this worksheet: audit these too")
        lines += [f"    {r.id}  {r.severity:<6}  {r.title}" for r in since.added]
    if since.changed:
        lines.append(f"  Changed since ({len(since.changed)}): look at these again")
        for change in since.changed:
            what = [f"{name} {old or '-'} -> {new or '-'}" for name, old, new in change.fields if name not in ("summary", "title")]
            what += [name for name, _, _ in change.fields if name in ("summary", "title")]
            what += [", ".join(change.blocks) or "code"] if change.code_changed else []
            what += ["text"] if change.body_changed else []
            lines.append(f"    {change.id}  {'; '.join(what)}")
    if since.retired:
        lines.append(f"  Retired since ({len(since.retired)}): drop these from the next audit")
        lines += [f"    {rule_id}  {fate}" for rule_id, fate in since.retired]
    return lines


def reviewed_line(report: Report) -> str:
    """What was reviewed, by whom and when, in the words of the worksheet (or that it does not say)."""
    server = report.server_name or ("unnamed" if report.server_version else "not named in the worksheet")
    server += f", version {report.server_version}" if report.server_version else ""
    over = f"; reached over {report.server_transport}" if report.server_transport else ""
    return f"Server: {server}{over}; reviewer: {report.reviewer or 'not named'}; worksheet dated {report.date or 'unknown'}"


def render_text(report: Report) -> str:
    filled = len(report.items) - len(report.unfilled)
    lines = [
        f"Audit report: {report.file} ({report.format}, doctrine {report.doctrine_version}, "
        f"commit {report.commit[:12] or 'unknown'}, filters: {report.filters}); {filled} of {len(report.items)} item(s) judged; "
        f"gate: the {report.profile} profile",
        reviewed_line(report),
    ]
    counts = report.counts()
    for severity in report.severities:
        row = counts[severity]
        lines += ["", f"{severity.upper()}: {row['Fail']} fail, {row['Pass']} pass, {row['N/A']} n/a, {row[UNFILLED]} unfilled"]
        for item in report.failures(severity):
            outside = "" if in_profile(item.basis, report.profile) else f", outside the {report.profile} profile"
            lines.append(f"  FAIL {item.id}  {item.title}  [{finding_kind(item)}: {item.scope}, {item.basis}{outside}]")
            lines += (_indent("threats", threats_text(item.threats)) + _indent("evidence", item.evidence)
                      + _indent("notes", item.notes) + _indent("page", item.page))
    unfilled = report.unfilled
    lines += ["", f"Unfilled ({len(unfilled)})"]
    lines += [f"  {i.id}  {i.severity:<6}  {i.title}" for i in unfilled]
    if report.since:
        lines += _since_lines(report.since)
    high, gating = len(report.failures("high")), len(report.gating())
    verdict = (f"{gating} HIGH item(s) of the {report.profile} profile failed: exit 1" if gating
               else f"no HIGH item of the {report.profile} profile failed: exit 0")
    if high > gating:
        verdict += f" ({high - gating} other HIGH failure(s) are recommendations outside the profile)"
    return "\n".join([*lines, "", verdict]) + "\n"


def _since_data(since: Since | None) -> dict[str, Any] | None:
    if since is None:
        return None
    return {
        "from_version": since.from_version,
        "from_commit": since.from_ref,
        "to_version": since.to_version,
        "added": [{"id": r.id, "title": r.title, "severity": r.severity, "gate": r.gate} for r in since.added],
        "changed": [
            {
                "id": c.id, "fields": [{"field": f, "old": o, "new": n} for f, o, n in c.fields],
                "code_changed": c.code_changed, "blocks": list(c.blocks), "text_changed": c.body_changed,
            }
            for c in since.changed
        ],
        "retired": [{"id": rule_id, "fate": fate} for rule_id, fate in since.retired],
    }


def report_data(report: Report) -> dict[str, Any]:
    def item(i: Any) -> dict[str, str]:
        return {"id": i.id, "title": i.title, "severity": i.severity, "gate": i.gate, "scope": i.scope, "basis": i.basis,
                "kind": finding_kind(i), "in_profile": in_profile(i.basis, report.profile), "threats": list(i.threats),
                "status": i.status, "evidence": i.evidence, "notes": i.notes, "place": i.place, "page": i.page}

    return {
        "file": report.file,
        "format": report.format,
        "doctrine_version": report.doctrine_version,
        "commit": report.commit,
        "current_version": report.current_version,
        "filters": report.filters,
        "date": report.date,
        "server_name": report.server_name,
        "server_version": report.server_version,
        "reviewer": report.reviewer,
        "profile": report.profile,
        "threat_list": OWASP_MCP_TOP10,
        "statuses": list(STATUSES),
        "counts": report.counts(),
        "findings": {sev: [item(i) for i in report.failures(sev)] for sev in report.severities},
        "unfilled": [item(i) for i in report.unfilled],
        "since": _since_data(report.since),
        "exit_code": report.exit_code,
    }


def render_json(report: Report) -> str:
    return json.dumps(report_data(report), indent=2, ensure_ascii=False) + "\n"


def problems_json(file: str, problems: list[Problem]) -> str:
    data = {"file": file, "problems": [{"place": str(p.place), "message": p.message, "text": str(p)} for p in problems], "exit_code": 2}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
