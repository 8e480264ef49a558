"""The audit's worksheet: the export module's worksheet, with status and evidence filled for automated rules.

Manual rules stay blank for the reviewer. Evidence is the probe's summary and
transcript rows, bounded and stripped of control characters: it is text a
hostile server wrote, and it must not break a spreadsheet or a table. The
stamp names the server as its ``initialize`` result did (``serverInfo``),
cleaned the same way, and how the server was reached and which eras it answered.

An author reads it too: every audited row's notes give the rule's published page, a FAIL's evidence opens with
the rule's ``fix:`` line (and, for an SDK's default, whose it is), and the Markdown worksheet opens with what
the server can do and what to fix first, above the table (:func:`preface`).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from ..export.files import atomic_write
from ..export.formats import WRITERS, write_worksheet
from ..export.worksheet import to_markdown, worksheet_rows
from ..model import Corpus
from ..probes.support import Finding
from .plan import NOT_CHECKED, AuditResult, RuleFinding
from .server_text import audit_stamp, clean

STATUS_WORDS = {"PASS": "Pass", "FAIL": "Fail", "N/A": "N/A"}
"""Probe verdicts as a reviewer writes them in the worksheet (``export.STATUSES``)."""
MAX_ROWS, MAX_ROW_CHARS, MAX_CHARS = 12, 300, 3000
"""Evidence in a table cell (md, csv, xlsx): what a reviewer reads in a row."""
LIMITS = {"json": (400, 2000, 200_000)}
"""Evidence in JSON is read by programs: every row a probe gave (bounded still: a hostile server wrote it)."""


def formats() -> tuple[str, ...]:
    """Whatever the export module can write today, and SARIF (findings for code scanning, :mod:`.sarif`)."""
    return (*WRITERS, "sarif")


def evidence_text(finding: Finding, fmt: str = "md") -> str:
    max_rows, max_row, max_chars = LIMITS.get(fmt, (MAX_ROWS, MAX_ROW_CHARS, MAX_CHARS))
    rows = [finding.summary, *(row[:max_row] + (" …" if len(row) > max_row else "") for row in finding.evidence[:max_rows])]
    if len(finding.evidence) > max_rows:
        rows.append(f"… {len(finding.evidence) - max_rows} more row(s)")
    text = clean("\n".join(rows))
    return text if len(text) <= max_chars else text[:max_chars] + " …"


def _note(found: RuleFinding, result: AuditResult, corpus: Corpus) -> str:
    command = shlex.join(result.command)
    command = command if len(command) <= 200 else command[:200] + " …"
    over = f" over {result.facts.transport_text().partition(' at ')[0]}" if result.facts.transport == "http" else ""
    page = f"rule: {corpus.page_url(found.rule)}\n" if corpus.site else ""
    return page + clean(f"mcp-handbook audit: probe {found.probe} ({found.seconds:.1f} s) against {command}{over}")


def _advice(found: RuleFinding, result: AuditResult) -> str:
    """What a FAIL's author does: the rule's fix line, and whose default it is when the SDK's."""
    if found.finding.status != "FAIL":
        return ""
    lines = [f"fix: {found.rule.fix}"] if found.rule.fix else []
    inherited = result.inherited_from(found.rule.id)
    if inherited is not None:
        lines.append(f"inherited from {inherited.sdk} (a minimal server built on it fails the same way): override this "
                     "default or report it upstream")
    return clean("".join(f"{line}\n" for line in lines))


def _clause_prefix(found: RuleFinding) -> str:
    """Which clause of the claim a FAIL breaks, and what a PASS leaves to the reviewer (the ``clauses`` column says
    the whole of it): an audit's verdict is never read as more than its probe observed."""
    finding, rule = found.finding, found.rule
    if finding.status == "FAIL":
        clause = rule.clause_of(finding.reason)
        return clean(f"breaks: {clause['says']} ({finding.reason})\n") if clause else ""
    if finding.status == "PASS":
        left = [str(c.get("says", "")) for c in rule.clauses if not c.get("seen_by")]
        return clean(f"PASS covers the checked clauses only; review by hand: {'; '.join(left)}\n") if left else ""
    return ""


def audit_rows(corpus: Corpus, result: AuditResult, fmt: str = "md") -> list[dict[str, str]]:
    """Every rule of the corpus; the automated ones the audit checked carry status, evidence and a note."""
    by_id = {f.rule.id: f for f in result.findings}
    rows = worksheet_rows(corpus.rules, corpus)
    for row in rows:
        found = by_id.get(row["id"])
        if found is not None:
            evidence = evidence_text(found.finding, fmt)
            if found.na == NOT_CHECKED and not evidence.startswith("not checked"):
                evidence = f"not checked: {evidence}"
            evidence = _advice(found, result) + _clause_prefix(found) + evidence
            row.update(status=STATUS_WORDS[found.finding.status], evidence=evidence, notes=_note(found, result, corpus))
    return rows


def _line(text: str) -> str:
    """Server text made one safe Markdown line: no line break, no table pipe, no emphasis of its own."""
    return clean(" ".join(text.split())).replace("|", "\\|").replace("*", "\\*")


def preface(corpus: Corpus, result: AuditResult) -> list[str]:
    """The Markdown worksheet's opening for an author: what the server can do, what to fix first, then every FAIL
    with its fix and page, the SDK's defaults apart. No line starts with ``|`` or a stamp label, so ``report``
    still finds the table and the stamp."""
    from .summary import first_to_fix, opening_lines, page_of

    if not result.facts.answered:
        return ["## Not audited", "", _line(result.facts.describe()), ""]
    lines = ["## What this server can do, and what to fix first", ""]
    lines += [f"{_line(line)}" + "  " for line in opening_lines(result, corpus)] + [""]
    own = result.own_failures()
    inherited = [f for f in result.failures() if result.inherited_from(f.rule.id)]
    for title, found_list, verb in ((f"FAILs the author owns ({len(own)})", own, "fix"),
                                    (f"FAILs inherited from {result.sdk} ({len(inherited)}): override each default or "
                                     "report it upstream", inherited, "override")):
        if not found_list:
            continue
        lines += [f"### {_line(title)}", ""]
        for n, found in enumerate(found_list, start=1):
            rule = found.rule
            lines.append(f"{n}. **{rule.id}** ({rule.severity}) {_line(found.finding.summary)[:300]}  ")
            lines.append(f"   {verb}: {_line(rule.fix or rule.title)} ([{rule.id}]({page_of(rule, corpus)}))")
        lines.append("")
    kept = [i for i in result.inherited if i.deviation]
    if kept:
        lines += ["### Defaults the rules allow (N/A, does not apply)", ""]
        lines += [f"{n}. **{i.rule_id}**: {_line(i.deviation)}" for n, i in enumerate(kept, start=1)] + [""]
    if not own and not inherited and not first_to_fix(result, corpus):
        lines += ["No automated rule failed.", ""]
    return lines


def write_audit_worksheet(corpus: Corpus, result: AuditResult, *, fmt: str, path: Path, location: str | None = None) -> None:
    """Atomic, like every export: an audit that fails to write leaves no half-written file. The Markdown worksheet
    opens with the :func:`preface`, above the table ``report`` reads. ``location`` is where a SARIF result points
    (``--location``); the worksheet formats do not use it."""
    if fmt == "sarif":
        from .sarif import to_sarif

        atomic_write(path, to_sarif(corpus, result, location=location))
        return
    rows, stamp = audit_rows(corpus, result, fmt), audit_stamp(corpus, result)
    if fmt != "md":
        write_worksheet(rows, stamp, fmt=fmt, path=path)
        return
    text = to_markdown(rows, stamp)
    head, mark, table = text.partition("\nStatus is one of ")
    atomic_write(path, head + "\n" + "\n".join(preface(corpus, result)) + mark + table if mark else text)
